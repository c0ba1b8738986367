import assert from "node:assert/strict";
import { before } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import { publicActor, systemActor } from "../../src/modules/access/actor.js";
import type { Permission } from "../../src/modules/access/permissions.js";
import type { TestEngine } from "./engines.js";
import { createAttendee, createPublishedProject, createSession, createTicketType } from "./factories.js";
import { serverPerSuite, type TestServer } from "./test-server.js";

// The field reference page (/graphql/reference/) and the fixture its tests walk the API over, shared
// by test/docs/reference-*.test.ts: the page itself, the queries, and the mutations.

/** What the reference page says about each field and restricted argument: coordinate → permission. */
function documentedPermissions(html: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of html.matchAll(/data-(?:field|argument)="([^"]+)" data-permission="([^"]+)"/g)) {
    found.set(match[1] ?? "", match[2] ?? "");
  }
  return found;
}

/**
 * The waiting list throttles joins per client address (30 an hour), and one process builds many
 * fixtures: each join comes from its own documentation address (IPv6 counts per /64).
 */
let joins = 0;
const nextClientAddress = () => `2001:db8:${(++joins).toString(16)}::1`;

/** A published project with one of everything, checked-in attendee included. */
export async function referenceFixture(server: TestServer) {
  const { services } = server;
  const { project } = await createPublishedProject(services);
  const room = await services.agenda.createRoom(systemActor, { projectId: project.id, name: "Hall A" });
  const track = await services.agenda.createTrack(systemActor, { projectId: project.id, name: "Main" });
  const speaker = await services.agenda.createSpeaker(systemActor, {
    projectId: project.id,
    name: "Ada",
    links: [{ label: "Website", url: "https://example.test" }],
  });
  const session = await createSession(services, systemActor, project.id, {
    status: "PUBLISHED",
    roomId: room.id,
    trackId: track.id,
    speakerIds: [speaker.id],
  });
  await createSession(services, systemActor, project.id, { status: "DRAFT", title: "Draft" });
  // Sold out for a moment, so someone joins its waiting list; then raised, so a registration fits.
  const ticket = await createTicketType(services, systemActor, project.id, { quantity: 2 });
  const spareTicket = await createTicketType(services, systemActor, project.id, { name: "Spare" });
  const checkedIn = await createAttendee(services, systemActor, project.id, ticket.id);
  await services.checkins.checkIn(systemActor, { attendeeId: checkedIn.id });
  const waiting = await createAttendee(services, systemActor, project.id, ticket.id);
  await services.waitingList.join(
    { projectId: project.id, ticketTypeId: ticket.id, name: "Wen", email: "wen@example.test" },
    nextClientAddress(),
  );
  await services.tickets.updateTicketType(systemActor, { id: ticket.id, quantity: 100 });
  const door = await createTicketType(services, systemActor, project.id, {
    name: "Door",
    paymentMode: "AT_DOOR",
  });
  const placed = await services.orders.placeOrder(publicActor, {
    projectId: project.id,
    buyerName: "Bea Buyer",
    buyerEmail: "bea@example.test",
    tickets: [{ ticketTypeId: door.id, name: "Bea Buyer", email: `bea-${project.id}@example.test` }],
  });
  // Paid (with seller details, so it is invoiced) and partly refunded, so the Invoice and Refund
  // types' fields are reachable.
  await services.orders.updateSettings(systemActor, project.id, {
    holdMinutes: 15,
    sellerDetails: "Reference GmbH",
  });
  await services.orders.markOrderPaid(systemActor, { id: placed.order.id });
  await services.refunds.refundOrder(systemActor, { id: placed.order.id, amountMinor: 100 });
  const code = await services.discountCodes.createDiscountCode(systemActor, {
    projectId: project.id,
    code: "REFERENCE",
    kind: "PERCENTAGE",
    percentOff: 10,
  });
  const question = await services.questions.createQuestion(systemActor, {
    projectId: project.id,
    label: "Dietary needs",
    kind: "SHORT_TEXT",
    translations: [{ language: "de", label: "Ernährung" }],
  });
  await services.questions.setAnswers(systemActor, {
    attendeeId: checkedIn.id,
    answers: { [question.id]: "Vegetarian" },
  });
  return {
    project: project.id,
    room: globalId("Room", room.id),
    track: globalId("Track", track.id),
    speaker: globalId("Speaker", speaker.id),
    session: globalId("Session", session.id),
    ticket: globalId("TicketType", ticket.id),
    spareTicket: globalId("TicketType", spareTicket.id),
    checkedIn: globalId("Attendee", checkedIn.id),
    waiting: globalId("Attendee", waiting.id),
    order: globalId("Order", placed.order.id),
    discountCode: globalId("DiscountCode", code.id),
    question: globalId("RegistrationQuestion", question.id),
  };
}

/** The global ids of what `referenceFixture` made. */
export type ReferenceIds = Awaited<ReturnType<typeof referenceFixture>>;

/** `from` without `permission`. */
export const without = (permission: Permission, from: readonly Permission[]) =>
  from.filter((p) => p !== permission);

/** A server of `engine` for the enclosing `describe`, for walking the API over a fixture. */
export function referenceServerPerSuite(engine: TestEngine): TestServer {
  // The walk sends a few hundred requests; the hourly budget is not what these suites test.
  return serverPerSuite(engine, { RATE_LIMIT_APP_POINTS_PER_HOUR: "100000000" });
}

/**
 * `referenceServerPerSuite`, and what its reference page documents (coordinate → permission), read
 * once before the first test.
 */
export function referencePerSuite(engine: TestEngine): { server: TestServer; page: Map<string, string> } {
  const server = referenceServerPerSuite(engine);
  const page = new Map<string, string>();
  before(async () => {
    const response = await fetch(`${server.url}/graphql/reference/`);
    assert.equal(response.status, 200);
    for (const [coordinate, permission] of documentedPermissions(await response.text())) {
      page.set(coordinate, permission);
    }
  });
  return { server, page };
}
