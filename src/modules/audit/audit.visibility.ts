import type { AuditActorKind } from "../../db/schema.js";
import type { Permission } from "../access/permissions.js";
import type { Standing } from "../access/policy.js";

/** An entry of the log as the dashboard, the API and the CSV export show it. */
export interface AuditEntry {
  id: string;
  occurredAt: string;
  actor: { kind: AuditActorKind; id: string | null; label: string; linkId: string | null };
  via: string;
  ip: string | null;
  action: string;
  object: { type: string; id: string };
  /**
   * Changed fields with their new values (null where the value is not recorded or not readable) and,
   * when the write knew it, the value before (undefined when not recorded: a creation, or an entry
   * older than that); an amount in minor units names its currency.
   */
  changes: { field: string; value: string | null; before?: string | null; currency?: string }[];
}

/**
 * The permission that reads each kind of object an entry's values describe. `audit:read` says who
 * changed what and when; it never widens a grant: the new values of an attendee are for a caller
 * who may read attendees. `null`: any caller with access to the project reads it (the project's
 * own fields). A kind not named here (members, invitations, apps, anything added later) shows its
 * values to the project's owners and admins only, so a new kind can never leak by accident.
 */
const readPermission: Record<string, Permission | null> = {
  Project: null,
  Session: "agenda:read",
  Speaker: "agenda:read",
  Track: "agenda:read",
  Room: "agenda:read",
  TicketType: "tickets:read",
  Attendee: "attendees:read",
  CheckIn: "attendees:read",
  Order: "orders:read",
  Invoice: "orders:read",
};

/** What an actor's access lets them see of an entry. */
export interface AuditVisibility {
  /** Organizers' email addresses and every client address: owners and admins (and the operator). */
  organizerData: boolean;
  /** Whether the entry's recorded values about an object of this kind are readable. */
  values(objectType: string): boolean;
}

/**
 * What `standing` sees of the log: owners and admins (the only organizers holding `audit:read`) and
 * the operator see all; an app sees who acted and what, the values of the objects its own
 * permissions read, and no organizer's email or anyone's address.
 */
export function auditVisibility(standing: Standing): AuditVisibility {
  const full =
    standing.actor.kind === "system" ||
    (standing.actor.kind === "user" && (standing.role === "OWNER" || standing.role === "ADMIN"));
  return {
    organizerData: full,
    values: (objectType) => {
      if (full) return true;
      if (!Object.hasOwn(readPermission, objectType)) return false;
      const needed = readPermission[objectType];
      if (needed === null) return true;
      return needed !== undefined && standing.permissions.has(needed);
    },
  };
}

/** The entry as `visibility` lets its reader see it: hidden values read null, hidden people by role. */
export function visibleEntry(entry: AuditEntry, visibility: AuditVisibility): AuditEntry {
  const valuesShown = visibility.values(entry.object.type);
  if (visibility.organizerData && valuesShown) return entry;
  const actor =
    entry.actor.kind === "user" && !visibility.organizerData
      ? { ...entry.actor, label: "Organizer" }
      : entry.actor;
  return {
    ...entry,
    actor,
    ip: visibility.organizerData ? entry.ip : null,
    // Neither value, before nor after, of an object the reader may not read.
    changes: valuesShown ? entry.changes : entry.changes.map((c) => ({ field: c.field, value: null })),
  };
}
