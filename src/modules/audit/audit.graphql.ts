import { notFound } from "../../errors.js";
import { builder } from "../../graphql/builder.js";
import { connectionTypes, toConnection } from "../../graphql/connections.js";
import { atMost, boundedList } from "../../graphql/limits/list-bounds.js";
import { requires } from "../../graphql/permissions.js";
import { ProjectRef } from "../projects/projects.graphql.js";
import type { AuditEntry } from "./audit.visibility.js";

/** An entry lists at most this many changed fields (a project update changes fewer than 20). */
const maxChangesPerEntry = 50;

const AuditEntryRef = builder.objectRef<AuditEntry>("AuditEntry");
const AuditActorRef = builder.objectRef<AuditEntry["actor"]>("AuditActor");
const AuditChangeRef = builder.objectRef<AuditEntry["changes"][number]>("AuditChange");

const AuditActorKindEnum = builder.enumType("AuditActorKind", {
  description: "Who took an audited action.",
  values: {
    USER: {
      value: "user",
      description: "An organizer, in the dashboard (or through the CLI on their behalf).",
    },
    APP: { value: "app", description: "An app, through the API with its token." },
    SYSTEM: { value: "system", description: "The operator through the CLI, or the server itself." },
    PUBLIC: { value: "public", description: "An attendee on the public event page." },
  } as const,
});

/** Defines `Project.auditLog` (needs audit:read) and its entry types. */
export function defineAuditTypes(): void {
  AuditActorRef.implement({
    inheritsAccess: true,
    description: "Who took an audited action, as they were named at the time.",
    fields: (t) => ({
      kind: t.field({
        type: AuditActorKindEnum,
        description: "User, app, operator or public.",
        resolve: (a) => a.kind,
      }),
      id: t.string({
        nullable: true,
        description: "The user's or app's id (null for the operator and the public).",
        resolve: (a) => a.id,
      }),
      name: t.string({
        description: "The user's email address or the app's name at the time.",
        resolve: (a) => a.label,
      }),
      linkId: t.string({
        nullable: true,
        description: "The link an app acted through, when the project is not the app's home project.",
        resolve: (a) => a.linkId,
      }),
    }),
  });

  AuditChangeRef.implement({
    inheritsAccess: true,
    description:
      "A field an action changed, with its new value and, for an update, its value before, where the log records them.",
    fields: (t) => ({
      field: t.exposeString("field", { description: "The field's name (as in the API's inputs)." }),
      value: t.exposeString("value", {
        nullable: true,
        description: "The new value as text (JSON for structured values); null when cleared or not recorded.",
      }),
      previousValue: t.string({
        nullable: true,
        description:
          "The value before the change, as text like `value`; null when it was empty, on a creation, or when the log does not record it.",
        resolve: (c) => c.before ?? null,
      }),
    }),
  });

  AuditEntryRef.implement({
    inheritsAccess: true,
    description: "One audited action: who did what to which object, when and from where.",
    fields: (t) => ({
      id: t.exposeString("id", { description: "The entry's id." }),
      occurredAt: t.expose("occurredAt", { type: "DateTime", description: "When the change committed." }),
      actor: t.field({ type: AuditActorRef, description: "Who acted.", resolve: (e) => e.actor }),
      via: t.exposeString("via", { description: "dashboard, api, cli or server." }),
      ip: t.exposeString("ip", {
        nullable: true,
        description: "The client's address, when the action came over HTTP.",
      }),
      action: t.exposeString("action", {
        description: "What happened, `<object>.<verb>`: session.updated, member.removed…",
      }),
      objectType: t.string({
        description: "The type of the changed object (Session, Member, App…).",
        resolve: (e) => e.object.type,
      }),
      objectId: t.string({ description: "The changed object's id.", resolve: (e) => e.object.id }),
      changes: t.field({
        type: [AuditChangeRef],
        ...boundedList(maxChangesPerEntry),
        description: "The changed fields with their new values; never secrets or tokens.",
        resolve: (e) => atMost(e.changes, maxChangesPerEntry),
      }),
    }),
  });

  builder.objectField(ProjectRef, "auditLog", (t) =>
    t.connection(
      {
        ...requires("audit:read"),
        type: AuditEntryRef,
        nullable: true,
        description:
          "The project's audit log, newest first; entries are kept for a limited time (one year by default).",
        args: {
          actor: t.arg.string({
            description: "Only this actor: `user:<id>`, `app:<id>`, `system` or `public`.",
          }),
          action: t.arg.string({
            description: "Only this action (`session.updated`), or a prefix ending in a dot (`session.`).",
          }),
          from: t.arg({ type: "DateTime", description: "Only entries at or after this time." }),
          to: t.arg({ type: "DateTime", description: "Only entries before this time." }),
        },
        resolve: async (project, args, c) => {
          const access = await c.access(project.id);
          if (!access) throw notFound("Project");
          const filter = {
            actor: args.actor ?? undefined,
            action: args.action ?? undefined,
            from: args.from ?? undefined,
            to: args.to ?? undefined,
          };
          let total: (() => Promise<number>) | undefined;
          return toConnection(
            args,
            async (window) => {
              const page = await c.services.audit.listPage(c.actor, project.id, filter, window);
              total = page.totalCount;
              return page;
            },
            () => (total ? total() : Promise.resolve(0)),
          );
        },
      },
      ...connectionTypes("AuditEntry", "audit entries"),
    ),
  );
}
