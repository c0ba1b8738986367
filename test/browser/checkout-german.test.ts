import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import { createProject, createTicketType, createUser, userActor } from "../helpers/factories.js";

async function assertFits(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} is ${overflow} px wider than the window`);
}

// Issue 43's leftovers: the organizer gives a registration question its German texts on the
// question's page; a buyer whose browser reads German buys a ticket by bank transfer (the phone
// without script), meets the refusals, the order page and the confirmation email in German, and the
// answer is stored as the option was written.
describeInBrowser("buying a ticket in German in Chromium", { mailbox: true }, (fx) => {
  for (const width of [390, 1280]) {
    test(`question texts per language, the checkout, the order page and the email in German (${width} px)`, async () => {
      const { services } = fx.server;
      const user = await createUser(services);
      const owner = userActor(user.id);
      const { project } = await createProject(services, {
        ownerId: user.id,
        input: { name: "Harbour Conf", status: "PUBLISHED", timezone: "Europe/Berlin" },
      });
      await services.orders.updateSettings(owner, project.id, {
        holdMinutes: 2_880,
        bankDetails: "Harbour e.V.\nIBAN DE02 1203 0000 0000 2020 51",
        taxRateBasisPoints: 1_900,
      });
      const pass = await createTicketType(services, owner, project.id, {
        name: "Day pass",
        priceMinor: 11_900,
        paymentMode: "BANK_TRANSFER",
      });
      await services.eventLanguages.update(owner, project.id, {
        languages: ["en", "de"],
        translations: [
          { language: "de", subject: "project", field: "name", text: "Hafenkonferenz" },
          { language: "de", subject: pass.id, field: "name", text: "Tagesticket" },
        ],
      });
      const diet = await services.questions.createQuestion(owner, {
        projectId: project.id,
        label: "Diet",
        kind: "ONE_CHOICE",
        required: true,
        options: ["Any", "Vegan"],
      });

      // The organizer: Tickets › Questions › Diet, the German texts.
      const organizer = await fx.page(width, user);
      await organizer.goto(`${fx.server.url}/b/${project.id}/questions`);
      await organizer.getByRole("link", { name: "Diet" }).click();
      const german = organizer.getByRole("group", { name: "Texts in Deutsch" });
      await german.getByLabel("Question").fill("Ernährung");
      await german.getByLabel("Help").fill("Wir kochen für alle.");
      await german.getByLabel("Option “Any”").fill("Egal");
      await assertFits(organizer, "the question's page");
      await screenshot(organizer, `question-translations-${width}`);
      await organizer.getByRole("button", { name: "Save question" }).click();
      await organizer.getByText("“Diet” saved.").waitFor();
      await organizer.getByRole("link", { name: "Diet" }).click();
      assert.equal(await german.getByLabel("Option “Any”").inputValue(), "Egal");

      // The buyer: a German browser, no script on the phone.
      const page = await fx.page(width, undefined, { locale: "de-DE", javaScriptEnabled: width !== 390 });
      await page.goto(`${fx.server.url}/e/${project.id}`);
      await page.getByRole("link", { name: "Kaufen Tagesticket" }).click();
      await page.getByRole("heading", { name: "Ihre Bestellung" }).waitFor();
      await page.getByText(/\(darin 19,00\s€ Steuer\)/).waitFor();
      const holder = page.getByRole("group", { name: "Ticket 1: Tagesticket" });
      await page.getByLabel("Ihre E-Mail-Adresse").fill(`bea-${width}@example.org`);
      await holder.getByLabel("Name").fill("Ann Gast");
      await holder.getByLabel("E-Mail").fill(`ann-${width}@example.org`);
      await holder.getByText("Wir kochen für alle.").waitFor();
      await page.getByRole("button", { name: "Zahlungspflichtig bestellen" }).click();
      // Refused in German: the name is missing; then the required answer.
      await page.getByText("Bitte korrigieren Sie die markierten Felder.").waitFor();
      await page.getByText("Bitte füllen Sie dieses Feld aus.").waitFor();
      await page.getByLabel("Ihr Name").fill("Bea Käuferin");
      await page.getByRole("button", { name: "Zahlungspflichtig bestellen" }).click();
      await page.getByText("Bitte beantworten Sie diese Frage.").waitFor();
      assert.equal(await page.getByLabel("Ihr Name").inputValue(), "Bea Käuferin");
      await holder.getByLabel("Ernährung").selectOption({ label: "Egal" });
      await assertFits(page, "the German order form");
      await screenshot(page, `checkout-german-form-${width}`);
      await page.getByRole("button", { name: "Zahlungspflichtig bestellen" }).click();

      await page.getByRole("heading", { name: /^Bestellung / }).waitFor();
      assert.equal(await page.getAttribute("html", "lang"), "de");
      const code = (await page.getByRole("heading", { name: /^Bestellung / }).innerText()).replace(
        /^Bestellung /,
        "",
      );
      await page.getByText("Zahlung ausstehend").waitFor();
      await page.getByText(/Überweisen Sie 119,00\s€ mit diesem Verwendungszweck:/).waitFor();
      await page
        .getByText(/Ihre Plätze sind bis .* \(Zeitzone Europe\/Berlin\) für Sie reserviert\./)
        .waitFor();
      await assertFits(page, "the German order page");
      await screenshot(page, `checkout-german-order-${width}`);

      // Paid: the confirmation arrives in German at the real SMTP server.
      const order = await services.database.db
        .selectFrom("orders")
        .select("id")
        .where("code", "=", code)
        .executeTakeFirstOrThrow();
      await services.orders.markOrderPaid(owner, { id: order.id });
      const received = await fx.mailbox.latest(`bea-${width}@example.org`);
      const text = Buffer.from(received.text, "latin1").toString("utf8");
      assert.equal(received.subject, `Ihre Bestellung ${code} für Hafenkonferenz`);
      assert.match(text, /^Hallo Bea Käuferin,/);
      assert.match(text, /Sie ist bezahlt\./);
      assert.match(text, /1 × Tagesticket: 119,00\s€ \(inkl\. 19\s% Steuer 19,00\s€\)/);
      await page.reload();
      await page.getByText("Bezahlt", { exact: true }).waitFor();

      // The answer is the option as written, whatever language it was picked in.
      const access = await services.access.resolve(owner, project.id);
      assert.ok(access);
      const [ticket] = await services.database.db
        .selectFrom("attendees")
        .select(["id", "language"])
        .where("order_id", "=", order.id)
        .execute();
      assert.equal(ticket?.language, "de");
      const answers = await services.questions.answersOf(access, [ticket?.id ?? ""]);
      assert.deepEqual(
        answers.get(ticket?.id ?? "")?.map((a) => [a.question.id, a.value]),
        [[diet.id, "Any"]],
      );
    });
  }
});
