import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { decodeQR } from "@paulmillr/qr/decode.js";
import { testEngines } from "../../../test/helpers/engines.js";
import { createApp, createAttendee, createTicketType, userActor } from "../../../test/helpers/factories.js";
import { gql } from "../../../test/helpers/graphql.js";
import { startTestServer, type TestServer } from "../../../test/helpers/test-server.js";
import { qrSvg } from "../../shared/qr.js";
import { generateTicketCode, normalizeTicketCode } from "./ticket-code.js";

const shape = /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/;

/** Paints the SVG's path (runs of `M x y h w v1 h-w z`) into an RGBA bitmap, `scale` pixels a module. */
function rasterize(svg: string, scale: number) {
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1]);
  const width = size * scale;
  const data = new Uint8Array(width * width * 4).fill(255);
  for (const [, x, y, w] of svg.matchAll(/M(\d+) (\d+)h(\d+)/g)) {
    for (let py = Number(y) * scale; py < (Number(y) + 1) * scale; py++) {
      for (let px = Number(x) * scale; px < (Number(x) + Number(w)) * scale; px++) {
        data.fill(0, (py * width + px) * 4, (py * width + px) * 4 + 3);
      }
    }
  }
  return { width, height: width, data };
}

describe("ticket codes", () => {
  test("refuses what cannot be a code: wrong length, letters outside the alphabet, huge input", () => {
    for (const input of [
      "",
      "ABCD-EFGH-JKMN",
      "ABCD-EFGH-JKMN-PQRSX",
      "ABCD-EFGH-JKMN-PQRU",
      "ABCD!EFGH-JKMN-PQRS",
    ]) {
      assert.equal(normalizeTicketCode(input), null, input);
    }
    assert.equal(normalizeTicketCode(`${"A".repeat(16)}${" ".repeat(100)}`), null);
  });

  test("reads a typed code in any case, with spaces or no dashes, O as 0 and I or L as 1", () => {
    assert.equal(normalizeTicketCode(" 7k3m 9qxr-2d4f hv8n "), "7K3M-9QXR-2D4F-HV8N");
    assert.equal(normalizeTicketCode("7K3M9QXR2D4FHV8N"), "7K3M-9QXR-2D4F-HV8N");
    assert.equal(normalizeTicketCode("OIL0-0000-0000-0000"), "0110-0000-0000-0000");
  });

  test("generates distinct codes of the documented shape that read back as themselves", () => {
    const codes = new Set(Array.from({ length: 2_000 }, () => generateTicketCode()));
    assert.equal(codes.size, 2_000);
    for (const code of codes) {
      assert.match(code, shape);
      assert.equal(normalizeTicketCode(code), code);
    }
  });

  test("renders a QR code a decoder reads back, with an escaped accessible name", () => {
    const code = generateTicketCode();
    const svg = qrSvg(code, `Ticket of <Ada & "Bob">`);
    assert.ok(svg.length < 4_000, `SVG is ${svg.length} bytes`);
    assert.match(svg, /<title>Ticket of &#60;Ada &#38; &#34;Bob&#34;&#62;<\/title>/);
    assert.equal(decodeQR(rasterize(svg, 4)), code);
  });
});

for (const engine of testEngines()) {
  describe(`Attendee.ticketCode (${engine.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(engine);
    });
    after(() => server.close());

    test("is given at registration, unique, and readable only with attendees:read", async () => {
      const reader = await createApp(server.services, { permissions: ["attendees:read"] });
      const owner = userActor(reader.ownerId ?? "");
      const ticketType = await createTicketType(server.services, owner, reader.projectId);
      const first = await createAttendee(server.services, owner, reader.projectId, ticketType.id);
      const second = await createAttendee(server.services, owner, reader.projectId, ticketType.id);
      assert.match(first.ticketCode, shape);
      assert.notEqual(first.ticketCode, second.ticketCode);

      const { token: blind } = await createApp(server.services, {
        projectId: reader.projectId,
        ownerId: reader.ownerId,
        permissions: ["checkins:write"],
      });
      const query = `query($p: ID!) { project(id: $p) { attendees(first: 10) { edges { node { id ticketCode } } } } }`;
      const list = await gql(server.url, query, {
        token: reader.token,
        variables: { p: reader.projectId },
      });
      const nodes = (
        list.body.data.project.attendees.edges as { node: { id: string; ticketCode: string } }[]
      ).map((e) => e.node);
      assert.deepEqual(
        new Set(nodes.map((n) => n.ticketCode)),
        new Set([first.ticketCode, second.ticketCode]),
      );
      const denied = await gql(server.url, query, { token: blind, variables: { p: reader.projectId } });
      assert.equal(denied.body.errors?.[0]?.extensions?.code, "FORBIDDEN", JSON.stringify(denied.body));
      assert.equal(denied.body.errors[0].extensions.requiredPermission, "attendees:read");
      assert.doesNotMatch(JSON.stringify(denied.body), new RegExp(first.ticketCode));
    });
  });
}
