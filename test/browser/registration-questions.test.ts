import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import { createProject, createTicketType, createUser, userActor } from "../helpers/factories.js";

async function assertFits(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} is ${overflow} px wider than the window`);
}

// Issue 43: the organizer adds questions on the dashboard, a visitor answers them on the event
// page (the phone without script: a plain form), a required one left empty is refused beside its
// field, and the organizer reads the answers on the attendee's page and in the CSV export.
describeInBrowser("registration questions in Chromium", {}, (fx) => {
  for (const width of [390, 1280]) {
    test(`adds questions, a visitor answers them, the organizer reads them (${width} px)`, async () => {
      const user = await createUser(fx.server.services);
      const owner = userActor(user.id);
      const { project } = await createProject(fx.server.services, {
        ownerId: user.id,
        input: { name: "Question Conf", status: "PUBLISHED", timezone: "UTC" },
      });
      await createTicketType(fx.server.services, owner, project.id, { name: "Community", priceMinor: 0 });

      const organizer = await fx.page(width, user);
      await organizer.goto(`${fx.server.url}/b/${project.id}/tickets`);
      await organizer.getByRole("link", { name: "Questions" }).click();
      const add = organizer.getByRole("form", { name: "Add question" });
      // A choice without options is refused, with the reason beside the field.
      await add.getByLabel("Question").fill("Diet");
      await add.getByLabel("Kind").selectOption("ONE_CHOICE");
      await add.getByRole("button", { name: "Add question" }).click();
      await organizer.getByText(/a choice needs at least two options/i).waitFor();
      await add.getByLabel("Options").fill("Anything\nVegetarian\nVegan");
      await add.getByLabel("Required").check();
      await add.getByRole("button", { name: "Add question" }).click();
      await organizer.getByText("“Diet” added.").waitFor();
      await add.getByLabel("Question").fill("Workshops");
      await add.getByLabel("Kind").selectOption("SEVERAL_CHOICES");
      await add.getByLabel("Options").fill("Kubernetes\nRust");
      await add.getByRole("button", { name: "Add question" }).click();
      await organizer.getByText("“Workshops” added.").waitFor();
      await add.getByLabel("Question").fill("Country");
      await add.getByLabel("Kind").selectOption("COUNTRY");
      await add.getByRole("button", { name: "Add question" }).click();
      await organizer.getByText("“Country” added.").waitFor();
      // Country first: the order the form asks them in is the organizer's.
      await organizer.getByRole("button", { name: "Move Country up" }).click();
      await organizer.getByRole("button", { name: "Move Country up" }).click();
      const order = await organizer.locator("table th[scope=row] a").allTextContents();
      assert.deepEqual(order, ["Country", "Diet", "Workshops"]);
      await assertFits(organizer, "the questions page");
      await screenshot(organizer, `questions-page-${width}`);

      const visitor = await fx.page(width, undefined, { javaScriptEnabled: width !== 390 });
      await visitor.goto(`${fx.server.url}/e/${project.id}/register`);
      const form = visitor.getByRole("form", { name: "Registration" });
      await form.getByLabel("Name", { exact: true }).fill("Vic Visitor");
      await form.getByLabel("Email").fill(`vic-${width}@example.org`);
      await form.getByLabel("Country").selectOption("PT");
      await form.getByLabel("Rust").check();
      await form.getByRole("button", { name: "Register" }).click();
      // The required question left empty: refused, the message beside it, the other answers kept.
      await visitor.getByText("This question needs an answer.").waitFor();
      assert.equal(await form.getByLabel("Country").inputValue(), "PT");
      assert.equal(await form.getByLabel("Rust").isChecked(), true);
      await assertFits(visitor, "the refused registration form");
      await screenshot(visitor, `questions-refused-${width}`);
      await form.getByLabel("Diet").selectOption("Vegan");
      await form.getByRole("button", { name: "Register" }).click();
      await visitor.getByRole("heading", { name: "Check your inbox" }).waitFor();

      await organizer.goto(`${fx.server.url}/b/${project.id}/attendees`);
      await organizer.getByRole("link", { name: "Vic Visitor" }).click();
      const answers = organizer.getByRole("region", { name: "Answers" });
      // The answers as read (dd), not the options of the closed edit form.
      const shown = (text: string) => answers.locator("dd").getByText(text, { exact: true });
      await shown("Vegan").waitFor();
      await shown("Portugal (PT)").waitFor();
      await shown("Rust").waitFor();
      await assertFits(organizer, "the attendee's page with answers");
      await screenshot(organizer, `questions-attendee-${width}`);
      // The organizer corrects an answer; the change is saved (and audited by the service).
      await answers.getByText("Edit answers").click();
      await answers.getByLabel("Diet").selectOption("Vegetarian");
      await answers.getByRole("button", { name: "Save answers" }).click();
      await organizer.getByText("Vic Visitor's answers saved.").waitFor();
      await shown("Vegetarian").waitFor();

      await organizer.goto(`${fx.server.url}/b/${project.id}/attendees`);
      const download = organizer.waitForEvent("download");
      await organizer.getByRole("link", { name: "Export CSV" }).click();
      let text = "";
      for await (const chunk of await (await download).createReadStream()) text += String(chunk);
      const [header, row] = text.trim().split(/\r?\n/);
      assert.match(header ?? "", /,Country,Diet,Workshops$/);
      assert.match(row ?? "", /,PT,Vegetarian,Rust$/);
    });
  }
});
