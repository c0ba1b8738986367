import type { Generated } from "kysely";

/*
 * Projects: the project, its members and invitations, its audit log and the API's idempotency
 * keys. The database as a whole: ../schema.ts.
 */

export type ProjectStatus = "DRAFT" | "PUBLISHED" | "ARCHIVED";

export interface ProjectsTable {
  /** Exactly 4 characters [A-Za-z0-9]. */
  id: string;
  name: string;
  description: string | null;
  timezone: string;
  starts_at: string | null;
  ends_at: string | null;
  venue_name: string | null;
  venue_address: string | null;
  venue_city: string | null;
  venue_country: string | null;
  website: string | null;
  status: ProjectStatus;
  /** 1 for a developer's test project (demo data, never published, never counted); 0 otherwise. */
  is_test: Generated<number>;
  /** The demo generator's seed of a test project, which a reset generates again; null otherwise. */
  test_seed: number | null;
  created_at: string;
  updated_at: string;
  // Also in the table until the next release drops them, read and written by nothing of this one:
  // data_version and the five area counters, now in project_versions (rolling upgrades, see
  // migration 2026-11-27T10-00_project-versions).
}

/**
 * A project's version counters, one per area of its data (src/shared/data-areas.ts): every write
 * bumps those of the areas it wrote, and the response cache validates hits against them. A row of
 * their own, which no foreign key references (see migration 2026-11-27T10-00_project-versions).
 */
export interface ProjectVersionsTable {
  project_id: string;
  project_version: Generated<number>;
  agenda_version: Generated<number>;
  tickets_version: Generated<number>;
  attendees_version: Generated<number>;
  checkins_version: Generated<number>;
}

export type MemberRole = "OWNER" | "ADMIN" | "MEMBER";

export interface ProjectMembersTable {
  project_id: string;
  user_id: string;
  role: MemberRole;
  created_at: string;
}

/** An invitation to join a project, accepted through an emailed link (only its hash is stored). */
export interface ProjectInvitationsTable {
  id: string;
  project_id: string;
  email: string;
  email_normalized: string;
  role: MemberRole;
  token_hash: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  accepted_by: string | null;
  revoked_at: string | null;
}

/** Who acted in an audit entry: an organizer, an app through its token, the operator's CLI, or an attendee. */
export type AuditActorKind = "user" | "app" | "system" | "public";

/** Where an audited action came from. */
type AuditVia = "dashboard" | "api" | "cli" | "server";

/** One audited action (docs/audit-log.md); no foreign keys, so it outlives what it names. */
export interface AuditEventsTable {
  id: string;
  /** Null only for the tombstone of a deleted project (its id is then `object_id`). */
  project_id: string | null;
  occurred_at: string;
  actor_kind: AuditActorKind;
  /** The user's or app's id; null for the operator. */
  actor_id: string | null;
  /** The user's email or the app's name at the time, kept when they are gone. */
  actor_label: string;
  /** The link an app acted through in a project other than its home project. */
  link_id: string | null;
  via: AuditVia;
  ip: string | null;
  /** `<object>.<verb>`, e.g. `session.updated`, `member.removed`. */
  action: string;
  object_type: string;
  object_id: string;
  /** JSON object of the changed fields and their new values (secrets never appear). */
  changes: string | null;
}

/** An API mutation's Idempotency-Key: its lock while it runs, then the answer to replay. */
export interface IdempotencyKeysTable {
  /** Whose key space: `app:<id>` (modules/idempotency). */
  scope: string;
  key: string;
  /** SHA-256 of the request (document, operation name, variables): a reuse with another body is refused. */
  fingerprint: string;
  /** While the first request runs: until when its lock holds (a crashed run's lock ends). */
  locked_until: string | null;
  /** The stored answer's HTTP status; null while the first request runs. */
  status: number | null;
  /** The stored answer's media type. */
  media: string | null;
  /** The stored answer's bytes (UTF-8 JSON), replayed as they are. */
  body: string | null;
  /**
   * When a transaction of the first request committed (set inside it): a run that changed
   * something is never run again, even when its answer was lost with its process.
   */
  committed_at: string | null;
  created_at: string;
  expires_at: string;
}
