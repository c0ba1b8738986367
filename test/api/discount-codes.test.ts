import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import { publicActor } from "../../src/modules/access/actor.js";
import { testEngines } from "../helpers/engines.js";
import {
  createApp,
  createPublishedProject,
  createSellingProject,
  createTicketType,
  uniqueEmail,
} from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";

const codesQuery = `query Codes($id: ID!) {
  project(id: $id) {
    discountCodes(first: 10) { totalCount edges { node { id code kind percentOff uses maxUses ticketTypeIds } } }
  }
}`;
const create = `mutation Create($input: CreateDiscountCodeInput!) {
  createDiscountCode(input: $input) { discountCode { id code uses } userErrors { field message code } }
}`;
const remove = `mutation Delete($id: ID!) {
  deleteDiscountCode(input: { id: $id }) { discountCode { code } userErrors { code message } }
}`;
const orderQuery = `query Order($id: ID!) {
  node(id: $id) { ... on Order { discountCode discount { amountMinor currency } total { amountMinor }
    lines { unitPriceMinor unitDiscountMinor } } }
}`;

for (const engine of testEngines()) {
  describe(`discount codes API (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    test("codes need tickets:write to read or write; tickets:read and the public see none", async () => {
      const { project, ownerId } = await createPublishedProject(server.services);
      const { token: reader } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["tickets:read", "orders:read"],
      });
      const { token: writer } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["tickets:write"],
      });
      const input = { projectId: project.id, code: "Early10", kind: "PERCENTAGE", percentOff: 10 };
      const refused = await gql(server.url, create, { token: reader, variables: { input } });
      assert.equal(refused.body.errors[0].extensions.code, "FORBIDDEN");
      assert.equal(refused.body.errors[0].extensions.requiredPermission, "tickets:write");
      const made = await gql(server.url, create, { token: writer, variables: { input } });
      assert.deepEqual(made.body.data.createDiscountCode.userErrors, []);
      const again = await gql(server.url, create, {
        token: writer,
        variables: { input: { ...input, code: "EARLY10" } },
      });
      assert.equal(again.body.data.createDiscountCode.discountCode, null);
      assert.deepEqual(again.body.data.createDiscountCode.userErrors[0].field, ["code"]);

      for (const token of [reader, undefined]) {
        const read = await gql(server.url, codesQuery, { token, variables: { id: project.id } });
        assert.equal(read.body.data.project.discountCodes, null);
        assert.equal(read.body.errors[0].extensions.code, "FORBIDDEN");
      }
      const listed = await gql(server.url, codesQuery, { token: writer, variables: { id: project.id } });
      assert.equal(listed.body.data.project.discountCodes.totalCount, 1);
      assert.equal(listed.body.data.project.discountCodes.edges[0].node.code, "Early10");
      const id = listed.body.data.project.discountCodes.edges[0].node.id;
      const node = await gql(server.url, "query($id: ID!) { node(id: $id) { id } }", {
        token: reader,
        variables: { id },
      });
      assert.equal(node.body.data.node, null);
      const gone = await gql(server.url, remove, { token: writer, variables: { id } });
      assert.equal(gone.body.data.deleteDiscountCode.discountCode.code, "Early10");
    });

    test("an order shows its code, its discount and each line's discount; the code's uses move", async () => {
      const { project, owner, ownerId } = await createSellingProject(server.services);
      const pass = await createTicketType(server.services, owner, project.id, {
        name: "Pass",
        priceMinor: 9999,
        paymentMode: "BANK_TRANSFER",
      });
      const { token } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["tickets:write", "orders:read"],
      });
      const made = await gql(server.url, create, {
        token,
        variables: {
          input: {
            projectId: project.id,
            code: "THIRD",
            kind: "PERCENTAGE",
            percentOff: 33,
            maxUses: 5,
            ticketTypeIds: [globalId("TicketType", pass.id)],
          },
        },
      });
      assert.deepEqual(made.body.data.createDiscountCode.userErrors, []);
      const before = await gql(server.url, codesQuery, { token, variables: { id: project.id } });
      assert.equal(before.body.errors, undefined, JSON.stringify(before.body));
      assert.equal(before.body.data.project.discountCodes.edges[0].node.uses, 0);
      const placed = await server.services.orders.placeOrder(publicActor, {
        projectId: project.id,
        buyerName: "Bea",
        buyerEmail: uniqueEmail(),
        tickets: [
          { ticketTypeId: pass.id, name: "Ann", email: uniqueEmail() },
          { ticketTypeId: pass.id, name: "Ben", email: uniqueEmail() },
        ],
        discountCode: "third",
      });
      const order = await gql(server.url, orderQuery, {
        token,
        variables: { id: globalId("Order", placed.order.id) },
      });
      assert.deepEqual(order.body.data.node, {
        discountCode: "THIRD",
        discount: { amountMinor: 6598, currency: "EUR" },
        total: { amountMinor: 13400 },
        lines: [{ unitPriceMinor: 9999, unitDiscountMinor: 3299 }],
      });
      // The cached list must not outlive the order that used the code.
      const after = await gql(server.url, codesQuery, { token, variables: { id: project.id } });
      assert.equal(after.body.data.project.discountCodes.edges[0].node.uses, 2);
      assert.deepEqual(after.body.data.project.discountCodes.edges[0].node.ticketTypeIds, [
        globalId("TicketType", pass.id),
      ]);
    });
  });
}
