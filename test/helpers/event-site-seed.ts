import { createSession, createTicketType } from "./factories.js";
import { createOrganizer } from "./organizer.js";
import type { TestServer } from "./test-server.js";

// Organizer text that tries everything: markup, a script, and the end of the JSON-LD element.
const xss = `Ada's </script><script>alert(1)</script><img src=x onerror=alert(2)> & "friends"`;

/** A published event with an agenda, speakers and three kinds of ticket, made by its organizer. */
export async function seedEvent(server: TestServer) {
  const { user, actor, project } = await createOrganizer(server.services, {
    name: "Olga Organizer",
    project: {
      name: `Harbour Conf ${xss}`,
      description: `Two days by the sea.\n\n${xss}`,
      timezone: "Europe/Dublin",
      startsAt: "2026-10-05T08:00:00.000Z",
      endsAt: "2026-10-06T16:00:00.000Z",
      venue: { name: "Harbour Hall", address: "1 Quay Street", city: "Galway", country: "IE" },
      status: "PUBLISHED",
    },
  });
  const services = server.services;
  const room = await services.agenda.createRoom(actor, { projectId: project.id, name: "Main hall" });
  const track = await services.agenda.createTrack(actor, { projectId: project.id, name: "Web" });
  const speaker = await services.agenda.createSpeaker(actor, {
    projectId: project.id,
    name: "Grace Hopper",
    company: "US Navy",
    bio: `Compilers. ${xss}`,
  });
  const hidden = await services.agenda.createSpeaker(actor, { projectId: project.id, name: "Draft Speaker" });
  const keynote = await createSession(services, actor, project.id, {
    title:
      "Keynote; with a comma, a semicolon and a very long title that has to be folded in iCalendar lines",
    description: `Line one\nLine two, with ${xss}`,
    startsAt: "2026-10-05T08:30:00.000Z",
    roomId: room.id,
    trackId: track.id,
    speakerIds: [speaker.id],
    status: "PUBLISHED",
  });
  const dayTwo = await createSession(services, actor, project.id, {
    title: "Day two opening",
    startsAt: "2026-10-06T08:00:00.000Z",
    status: "PUBLISHED",
  });
  await createSession(services, actor, project.id, {
    title: "Secret draft session",
    speakerIds: [hidden.id],
    status: "DRAFT",
  });
  const free = await createTicketType(services, actor, project.id, {
    name: "Community pass",
    priceMinor: 0,
    quantity: 2,
  });
  const door = await createTicketType(services, actor, project.id, {
    name: "Door pass",
    priceMinor: 4900,
    paymentMode: "AT_DOOR",
  });
  const elsewhere = await createTicketType(services, actor, project.id, {
    name: "Corporate pass",
    priceMinor: 99000,
  });
  return { user, actor, project, speaker, keynote, dayTwo, free, door, elsewhere };
}
