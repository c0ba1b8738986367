/**
 * The areas of a project's data that change independently, so a write evicts only the cached
 * answers that read what it changed: a check-in must not evict the agenda. Each area has its own
 * version counter in the project's `project_versions` row (bumped by ProjectChanges); an answer is
 * valid while the sum of the counters of the areas it read is unchanged (each only grows, so the
 * sum changes exactly when one of them does).
 */
const dataAreas = ["project", "agenda", "tickets", "attendees", "checkins"] as const;
export type DataArea = (typeof dataAreas)[number];

/** A set of areas as bits (bit i: dataAreas[i]). */
export type AreaMask = number;

export const areaBit: Record<DataArea, AreaMask> = {
  project: 1,
  agenda: 2,
  tickets: 4,
  attendees: 8,
  checkins: 16,
};
export const allAreas: AreaMask = 31;
export const dataAreaCount = dataAreas.length;

/** The version counters of one project, per area. */
export type AreaVersions = Readonly<Record<DataArea, number>>;

/** The version stamp of `areas`: the sum of their counters. */
export function stampOf(versions: AreaVersions, areas: AreaMask): number {
  let stamp = 0;
  for (let i = 0; i < dataAreas.length; i++) {
    if (areas & (1 << i)) stamp += versions[dataAreas[i] as DataArea];
  }
  return stamp;
}

/**
 * What the public event page shows: the project, its agenda and its tickets with the seats left
 * (registrations bump `tickets` too). Not attendees or check-ins: a check-in keeps the page cached.
 */
export const eventPageAreas: AreaMask = areaBit.project | areaBit.agenda | areaBit.tickets;

/**
 * What a write under `permission` changes. A registration also changes its ticket type's seat
 * counts; any other permission (project settings, members, apps) may change anything.
 */
export function areasWrittenUnder(permission: string): AreaMask {
  switch (permission) {
    case "agenda:write":
      return areaBit.agenda;
    case "tickets:write":
      return areaBit.tickets;
    case "attendees:write":
    // An order's tickets are attendees and take seats; orders themselves are read with attendees.
    case "orders:write":
      return areaBit.attendees | areaBit.tickets;
    case "checkins:write":
      return areaBit.checkins;
    default:
      return allAreas;
  }
}
