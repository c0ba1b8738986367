import { randomUUID } from "node:crypto";
import { type Actor, systemActor } from "../../src/modules/access/actor.js";
import type { Permission } from "../../src/modules/access/permissions.js";
import type { CreateSessionInput } from "../../src/modules/agenda/sessions.service.js";
import type { RegisterAttendeeInput } from "../../src/modules/attendees/attendee-input.js";
import type { CreateProjectInput } from "../../src/modules/projects/projects.service.js";
import type { CreateTicketTypeInput } from "../../src/modules/tickets/ticket-type-input.js";
import type { Services } from "../../src/services.js";

/** A unique email, so tests sharing the PostgreSQL database never collide. */
export function uniqueEmail(prefix = "user"): string {
  return `${prefix}-${randomUUID().slice(0, 12)}@example.test`;
}

export const testPassword = "correct horse battery staple";

/** A new user (verified unless told otherwise). */
export async function createUser(
  services: Services,
  overrides: { email?: string; name?: string; verified?: boolean } = {},
) {
  const user = await services.users.create({
    email: overrides.email ?? uniqueEmail(),
    name: overrides.name ?? "Ada Organizer",
    password: testPassword,
  });
  return overrides.verified === false ? user : services.users.markEmailVerified(user.id);
}

/** A new project owned by a new (or the given) user. */
export async function createProject(
  services: Services,
  options: { ownerId?: string; input?: Partial<CreateProjectInput> } = {},
) {
  const ownerId = options.ownerId ?? (await createUser(services)).id;
  const project = await services.projects.create(ownerId, {
    name: "Test Conference",
    timezone: "Europe/Berlin",
    ...options.input,
  });
  return { project, ownerId };
}

/** A new app (with its one-time token) in a new (or the given) project, created by the project's owner. */
export async function createApp(
  services: Services,
  options: {
    projectId?: string;
    ownerId?: string;
    name?: string;
    permissions?: Permission[];
    /** The API version it is pinned to (the newest when absent). */
    apiVersion?: string;
  } = {},
) {
  const home = options.projectId
    ? { projectId: options.projectId, ownerId: options.ownerId }
    : await createProject(services).then(({ project, ownerId }) => ({ projectId: project.id, ownerId }));
  const actor = home.ownerId ? { kind: "user" as const, userId: home.ownerId } : systemActor;
  const { app, token } = await services.apps.createApp(actor, {
    projectId: home.projectId,
    name: options.name ?? "Schedule Sync",
    permissions: options.permissions ?? ["agenda:read"],
    apiVersion: options.apiVersion,
  });
  return { app, token, projectId: home.projectId, ownerId: home.ownerId };
}

/**
 * Makes an existing user a member the only way there is: `actor` invites their address and they
 * accept the link (read from the service's answer here; the mail itself is tested elsewhere).
 */
export async function addMember(
  services: Services,
  actor: Actor,
  projectId: string,
  email: string,
  role: "OWNER" | "ADMIN" | "MEMBER",
): Promise<void> {
  const user = await services.users.findByEmail(email);
  if (!user) throw new Error(`addMember: no account for ${email}`);
  const { link } = await services.invitations.invite(actor, projectId, { email, role });
  const token = new URL(link).searchParams.get("token") ?? "";
  await services.invitations.accept(user.id, token);
}

/** An organizer acting in the dashboard. */
export function userActor(userId: string): Actor {
  return { kind: "user", userId };
}

/** An app created in `homeProjectId` holding `permissions` (its home project needs no link row). */
export function appActor(homeProjectId: string, permissions: Permission[] = []): Actor {
  return { kind: "app", appId: randomUUID(), homeProjectId, permissions };
}

/** A published project with its owner as an actor, for tests of what the public sees. */
export async function createPublishedProject(services: Services) {
  const { project, ownerId } = await createProject(services, { input: { status: "PUBLISHED" } });
  return { project, ownerId, owner: userActor(ownerId) };
}

/**
 * A published project that sells tickets: its order settings are `settings` over a 15-minute hold
 * and a placeholder IBAN (without bank details no bank-transfer order can be placed).
 */
export async function createSellingProject(
  services: Services,
  settings: Partial<Parameters<Services["orders"]["updateSettings"]>[2]> = {},
) {
  const published = await createPublishedProject(services);
  await services.orders.updateSettings(published.owner, published.project.id, {
    holdMinutes: 15,
    bankDetails: "IBAN DE02",
    ...settings,
  });
  return published;
}

/** How many unnamed ticket types each project got from `createTicketType`. */
const unnamedTicketTypes = new Map<string, number>();

/**
 * A ticket type on sale now (no sales window) with 100 seats unless told otherwise. Unnamed ones are
 * "Standard", then "Standard 2", … in one project, since a project's ticket type names are unique.
 */
export async function createTicketType(
  services: Services,
  actor: Actor,
  projectId: string,
  overrides: Partial<Omit<CreateTicketTypeInput, "projectId">> = {},
) {
  const unnamed = overrides.name === undefined ? (unnamedTicketTypes.get(projectId) ?? 0) + 1 : 0;
  if (unnamed > 0) unnamedTicketTypes.set(projectId, unnamed);
  return services.tickets.createTicketType(actor, {
    projectId,
    name: unnamed > 1 ? `Standard ${unnamed}` : "Standard",
    priceMinor: 9900,
    currency: "EUR",
    quantity: 100,
    ...overrides,
  });
}

/** A registered attendee with a unique email. */
export async function createAttendee(
  services: Services,
  actor: Actor,
  projectId: string,
  ticketTypeId: string,
  overrides: Partial<Omit<RegisterAttendeeInput, "projectId" | "ticketTypeId">> = {},
) {
  return services.attendees.registerAttendee(actor, {
    projectId,
    ticketTypeId,
    name: "Grace Attendee",
    email: uniqueEmail("attendee"),
    ...overrides,
  });
}

/** A session from `startsAt` lasting 45 minutes. */
export async function createSession(
  services: Services,
  actor: Actor,
  projectId: string,
  overrides: Partial<Omit<CreateSessionInput, "projectId">> & { startsAt?: string } = {},
) {
  const startsAt = overrides.startsAt ?? "2026-05-04T09:00:00.000Z";
  return services.agenda.createSession(actor, {
    projectId,
    title: "A talk",
    startsAt,
    endsAt: new Date(Date.parse(startsAt) + 45 * 60_000).toISOString(),
    ...overrides,
  });
}
