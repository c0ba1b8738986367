import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import { publicActor } from "../../src/modules/access/actor.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createSellingProject, createTicketType, uniqueEmail } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { pdfText } from "../helpers/pdf-text.js";
import { serverPerSuite } from "../helpers/test-server.js";

const orderQuery = `query Order($id: ID!) {
  node(id: $id) { ... on Order { code tax { amountMinor }
    lines { ticketTypeName taxRateBasisPoints taxMinor }
    invoices { number kind total { amountMinor currency } tax { amountMinor } correctsNumber url } } }
}`;

for (const engine of testEngines()) {
  describe(`invoices API (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    test("lists an order's invoices with a PDF URL that only an app holding orders:read can open", async () => {
      const { project, owner, ownerId } = await createSellingProject(server.services, {
        bankDetails: "IBAN DE02 1203",
        taxRateBasisPoints: 1_900,
        sellerDetails: "Conf GmbH, Berlin",
      });
      const pass = await createTicketType(server.services, owner, project.id, {
        name: "Pass",
        priceMinor: 11_900,
        paymentMode: "BANK_TRANSFER",
      });
      const placed = await server.services.orders.placeOrder(publicActor, {
        projectId: project.id,
        buyerName: "Bea Buyer",
        buyerEmail: uniqueEmail("buyer"),
        tickets: [{ ticketTypeId: pass.id, name: "Ann", email: uniqueEmail() }],
      });
      await server.services.orders.markOrderPaid(owner, { id: placed.order.id });
      const { token: reader } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["orders:read"],
      });
      const { token: blind } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["attendees:read"],
      });
      const id = globalId("Order", placed.order.id);
      const read = await gql(server.url, orderQuery, { token: reader, variables: { id } });
      const order = read.body.data.node;
      assert.equal(order.tax.amountMinor, 1_900);
      assert.deepEqual(order.lines, [{ ticketTypeName: "Pass", taxRateBasisPoints: 1_900, taxMinor: 1_900 }]);
      assert.equal(order.invoices.length, 1);
      const [invoice] = order.invoices;
      assert.deepEqual(
        [invoice.number, invoice.kind, invoice.total, invoice.tax.amountMinor, invoice.correctsNumber],
        ["INV-0001", "INVOICE", { amountMinor: 11_900, currency: "EUR" }, 1_900, null],
      );
      const path = new URL(invoice.url).pathname;
      assert.match(path, /^\/api\/invoices\/[A-Za-z0-9_-]+\.pdf$/);

      // Negative cases first: no token, another app's permissions, a made-up id, a malformed token.
      for (const authorization of [undefined, `Bearer ${blind}`]) {
        const headers: Record<string, string> = authorization ? { authorization } : {};
        const refused = await fetch(`${server.url}${path}`, { headers });
        assert.equal(refused.status, 404);
      }
      const unknown = await fetch(`${server.url}/api/invoices/nope.pdf`, {
        headers: { authorization: `Bearer ${reader}` },
      });
      assert.equal(unknown.status, 404);
      const garbage = await fetch(`${server.url}${path}`, { headers: { authorization: "Basic abc" } });
      assert.equal(garbage.status, 401);

      const pdf = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${reader}` } });
      assert.equal(pdf.status, 200);
      assert.equal(pdf.headers.get("content-type"), "application/pdf");
      assert.equal(pdf.headers.get("content-disposition"), 'attachment; filename="INV-0001.pdf"');
      assert.equal(pdf.headers.get("cache-control"), "private, no-store");
      const text = await pdfText(new Uint8Array(await pdf.arrayBuffer()));
      for (const expected of [
        "Invoice INV-0001",
        "Conf GmbH, Berlin",
        placed.order.code,
        "€100.00",
        "€19.00",
        "€119.00",
      ]) {
        assert.ok(text.includes(expected), `the PDF shows ${expected}:\n${text}`);
      }
    });
  });
}
