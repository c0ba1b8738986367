import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loggedInOrganizer, uploadedPreview } from "../helpers/dashboard-organizer.js";
import { sqliteEngine } from "../helpers/engines.js";
import type { HttpClient } from "../helpers/http-client.js";
import { serverPerSuite } from "../helpers/test-server.js";

// Issue 38, "Import": a list with First name and Last name columns imported first names only, and
// two ticket types of one name were accepted (the import then put every row on one of them).
describe("the import joins first and last names; ticket type names are refused twice", () => {
  const server = serverPerSuite(sqliteEngine);
  const organizer = () => loggedInOrganizer(server);
  const upload = (client: HttpClient, projectId: string, csv: string) =>
    uploadedPreview(server, client, projectId, csv);

  test("First name + Last name columns are guessed, joined with a space and imported whole", async () => {
    const { client, project } = await organizer();
    const csv = [
      "First name,Last name,E-mail,Ticket",
      `Ada,Lovelace,ada-${project.id}@example.org,Standard`,
      `Grace,,grace-${project.id}@example.org,Standard`,
    ].join("\n");
    const preview = await upload(client, project.id, csv);
    const page = await client.get(preview);
    assert.equal(client.formValue("map_name"), "0");
    assert.equal(client.formValue("map_lastName"), "1");
    assert.match(page.body, /Last name \(joined to the name\)/);
    const fields: Record<string, string> = {};
    for (const f of ["name", "lastName", "email", "company", "ticketType"])
      fields[`map_${f}`] = client.formValue(`map_${f}`) ?? "";
    assert.equal((await client.post(`${preview}/run`, fields)).status, 303);
    const deadline = Date.now() + 10_000;
    let names: string[] = [];
    while (names.length < 2 && Date.now() < deadline) {
      const rows = await server.database.db
        .selectFrom("attendees")
        .select("name")
        .where("project_id", "=", project.id)
        .orderBy("name")
        .execute();
      names = rows.map((r) => r.name);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(names, ["Ada Lovelace", "Grace"]);
  });

  test("a header with whole names is not joined to a last-name column", async () => {
    const { client, project } = await organizer();
    await client.get(
      await upload(
        client,
        project.id,
        "Name,Surname,Email,Ticket type\nAda Lovelace,Lovelace,a@example.org,Standard",
      ),
    );
    assert.equal(client.formValue("map_name"), "0");
    assert.equal(client.formValue("map_lastName"), "");
  });

  test("the Tickets page refuses a second ticket type of the same name", async () => {
    const { client, project } = await organizer();
    await client.get(`/b/${project.id}/tickets`);
    const answer = await client.post(`/b/${project.id}/tickets`, {
      name: "standard",
      priceMinor: "0",
      price: "0",
      currency: "EUR",
      quantity: "10",
    });
    assert.equal(answer.status, 409, answer.body.slice(0, 200));
    assert.match(answer.body, /Another ticket type of this project is already named “standard”/);
  });
});
