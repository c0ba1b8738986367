import assert from "node:assert/strict";
import { test } from "node:test";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import {
  createAttendee,
  createProject,
  createTicketType,
  createUser,
  testPassword,
} from "../helpers/factories.js";
import { Mailbox } from "../helpers/mailbox.js";

describeInBrowser("members tab and edit pages in Chromium", { mailbox: true }, (fx) => {
  test("an owner invites a colleague, who accepts on a phone; then re-roles and removes them, and edits a ticket type", async () => {
    const owner = await createUser(fx.server.services, { name: "Olga Owner" });
    const colleague = await createUser(fx.server.services, { name: "Carl Colleague" });
    const { project } = await createProject(fx.server.services, { ownerId: owner.id });
    const actor = { kind: "user", userId: owner.id } as const;
    const ticketType = await createTicketType(fx.server.services, actor, project.id, {
      name: "Standard",
      quantity: 5,
    });
    await createAttendee(fx.server.services, actor, project.id, ticketType.id);

    const page = await fx.desktop(owner);
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    const flash = (text: string) => page.getByRole("status").filter({ hasText: text }).waitFor();

    await page.goto(`${fx.server.url}/b/${project.id}/settings`);
    await page.getByRole("tab", { name: "Members" }).click();
    await page.getByRole("tabpanel", { name: "Members" }).waitFor();
    await page.getByLabel("Email").fill(colleague.email);
    await page.getByLabel("Role", { exact: true }).selectOption({ label: "Admin" });
    await page.getByRole("button", { name: "Send invitation" }).click();
    await flash(`We emailed ${colleague.email} an invitation to join as an admin.`);
    await page.getByRole("heading", { name: "Pending invitations" }).waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "members-invitation-phone");
    const narrow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(narrow <= 0, `the members tab with an invitation fits 390 px (overflow ${narrow}px)`);
    await page.setViewportSize({ width: 1280, height: 860 });

    // The colleague opens the emailed link on a 390 px phone, logs in and accepts.
    const link = Mailbox.linkIn(await fx.mailbox.latest(colleague.email), fx.server.url);
    const phone = await fx.phone();
    await phone.goto(`${fx.server.url}${link}`);
    await phone.getByRole("heading", { name: `Join ${project.name}` }).waitFor();
    await phone.getByRole("link", { name: "Log in to accept" }).click();
    await phone.getByLabel("Email").fill(colleague.email);
    await phone.getByLabel("Password").fill(testPassword);
    await phone.getByRole("button", { name: "Log in" }).click();
    await phone.getByRole("button", { name: "Accept invitation" }).waitFor();
    await screenshot(phone, "invitation-phone");
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the invitation page fits 390 px (overflow ${overflow}px)`);
    await phone.getByRole("button", { name: "Accept invitation" }).click();
    await phone
      .getByRole("status")
      .filter({ hasText: `Welcome to ${project.name}.` })
      .waitFor();

    await page.reload();
    await page.getByRole("combobox", { name: "Role of Carl Colleague" }).waitFor();
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(wide <= 0, `the members tab fits the desktop width (overflow ${wide}px)`);

    await page.getByRole("combobox", { name: "Role of Carl Colleague" }).selectOption({ label: "Member" });
    await page
      .getByRole("row")
      .filter({ hasText: "Carl Colleague" })
      .getByRole("button", { name: "Change role" })
      .click();
    await flash("Carl Colleague is now a member.");
    assert.equal(await page.getByRole("combobox", { name: "Role of Carl Colleague" }).inputValue(), "MEMBER");

    await page.getByRole("button", { name: "Remove Olga Owner" }).click();
    await page.getByRole("alert").filter({ hasText: "A project needs at least one owner" }).waitFor();
    await page.getByRole("button", { name: "Remove Carl Colleague" }).click();
    await flash("Carl Colleague was removed from the project.");
    await screenshot(page, "members");
    assert.deepEqual(dialogs, [
      "Remove Olga Owner from the project?",
      "Remove Carl Colleague from the project?",
    ]);

    await page.goto(`${fx.server.url}/b/${project.id}/tickets`);
    await page.getByRole("link", { name: "Edit ticket type Standard" }).click();
    await page.getByLabel("Quantity").fill("0");
    await page.getByLabel("Name").fill("Standard (late)");
    await page.getByRole("button", { name: "Save ticket type" }).click();
    await page.getByText("Must be at least 1, the number of tickets already sold").waitFor();
    assert.equal(await page.getByLabel("Name").inputValue(), "Standard (late)");
    await page.getByLabel("Quantity").fill("1");
    await page.getByRole("button", { name: "Save ticket type" }).click();
    await flash("Ticket type “Standard (late)” saved.");
  });
});
