/**
 * The permission catalogue (PRODUCT.md §3). Titles and descriptions are shown to people on the app
 * form and the consent page; `graphqlName` is the `Permission` enum value in the schema.
 * Reading a reachable project's basic fields needs no permission.
 */
export const permissionCatalogue = [
  {
    name: "project:write",
    graphqlName: "PROJECT_WRITE",
    title: "Edit event details",
    description: "Update the project's name, description, dates, time zone, venue, website and status.",
  },
  {
    name: "agenda:read",
    graphqlName: "AGENDA_READ",
    title: "Read the agenda",
    description: "Read all sessions, speakers, tracks and rooms, including drafts.",
  },
  {
    name: "agenda:write",
    graphqlName: "AGENDA_WRITE",
    title: "Edit the agenda",
    description: "Create, update and delete sessions, speakers, tracks and rooms.",
  },
  {
    name: "tickets:read",
    graphqlName: "TICKETS_READ",
    title: "Read ticket types",
    description: "Read ticket types with their capacity and sales figures.",
  },
  {
    name: "tickets:write",
    graphqlName: "TICKETS_WRITE",
    title: "Edit ticket types",
    description: "Create, update and delete ticket types.",
  },
  {
    name: "attendees:read",
    graphqlName: "ATTENDEES_READ",
    title: "Read attendees",
    description: "Read attendees and their personal data (name, email, company) and check-in state.",
  },
  {
    name: "attendees:write",
    graphqlName: "ATTENDEES_WRITE",
    title: "Manage registrations",
    description: "Register, update and cancel attendees.",
  },
  {
    name: "checkins:write",
    graphqlName: "CHECKINS_WRITE",
    title: "Check attendees in",
    description: "Check attendees in and undo a check-in.",
  },
  {
    name: "orders:read",
    graphqlName: "ORDERS_READ",
    title: "Read orders",
    description:
      "Read orders with their buyers' names and emails, amounts, payment state and bank transfer references.",
  },
  {
    name: "orders:write",
    graphqlName: "ORDERS_WRITE",
    title: "Manage orders",
    description: "Mark orders paid and cancel them (cancelling frees their seats).",
  },
  {
    name: "audit:read",
    graphqlName: "AUDIT_READ",
    title: "Read the audit log",
    description:
      "Read who changed what in the project and when: organizers' and apps' actions, with the changed fields, their new values and the address they came from.",
  },
] as const;

export type Permission = (typeof permissionCatalogue)[number]["name"];

export const allPermissions: readonly Permission[] = permissionCatalogue.map((p) => p.name);

const known = new Set<string>(allPermissions);

export function isPermission(value: string): value is Permission {
  return known.has(value);
}

/** Parses the stored space-separated form, dropping names no longer in the catalogue. */
export function parsePermissions(stored: string): Permission[] {
  return stored.split(/[\s,]+/).filter(isPermission);
}

/** The stored form: sorted by catalogue order, space-separated, no duplicates. */
export function serializePermissions(permissions: Iterable<Permission>): string {
  const set = new Set(permissions);
  return allPermissions.filter((p) => set.has(p)).join(" ");
}
