import { notFound } from "../../errors.js";
import { allPermissions } from "../../modules/access/permissions.js";
// Type-only: the services are imported inside `run`, so help and usage errors answer without them.
import type { AppWithToken } from "../../modules/apps/apps.service.js";
import { type CommandGroup, type CommandInput, requiredFlag } from "../command.js";
import { printResult } from "../output.js";
import { oauthClientCommand } from "./oauth-client.js";
import { webhookCommands } from "./webhooks.js";

/**
 * The `--permissions` list: names separated by commas (spaces tolerated). An empty value means no
 * permission at all: the app then reads only the basic fields of the projects it reaches. Unknown
 * names are left for the service, which lists them in its one-line error.
 */
function permissionNames(input: CommandInput): string[] {
  return input
    .requiredString("permissions")
    .split(/[\s,]+/)
    .filter((name) => name !== "");
}

// The install-flow URLs, shared by create and update: https:// (http:// only for localhost); "" clears.
const urlOptions = {
  "redirect-url": {
    type: "string",
    placeholder: "URL",
    description: "where Authorize/Cancel send the organizer (?project_id=…&state=… or ?error=access_denied)",
  },
  "website-url": {
    type: "string",
    placeholder: "URL",
    description: "the app's website, on the connect page",
  },
  "privacy-url": {
    type: "string",
    placeholder: "URL",
    description: "the app's privacy policy, on the connect page",
  },
} as const;

/** The URL flags given (an empty value clears a URL); absent flags leave it as it is. */
function urlInput(input: CommandInput) {
  const value = (name: string) => {
    const given = input.string(name);
    return given === undefined ? undefined : given === "" ? null : given;
  };
  return {
    redirectUrl: value("redirect-url"),
    websiteUrl: value("website-url"),
    privacyPolicyUrl: value("privacy-url"),
  };
}

function listOrNone(permissions: readonly string[]): string {
  return permissions.length > 0 ? permissions.join(", ") : "none (basic project fields only)";
}

// The one place a token is printed: stdout, once, with --json or with a warning people cannot miss.
function printToken(input: CommandInput, { app, token }: AppWithToken, headline: string, after: string) {
  printResult(
    input.io,
    input.json,
    { id: app.id, name: app.name, permissions: app.permissions, token, connectLink: app.connectUrl },
    [
      headline,
      `  App id:       ${app.id}`,
      `  Permissions:  ${listOrNone(app.permissions)}`,
      `  Connect link: ${app.connectUrl}`,
      `  Token:        ${token}`,
      "",
      "The token is shown only this once: store it now (it is kept only as a hash).",
      after,
    ].join("\n"),
  );
}

/** `eventgraph apps …`: apps, their tokens and the projects linked to them, as the operator. */
export const appsCommands: CommandGroup = {
  name: "apps",
  summary: "create apps, link and revoke projects, rotate tokens, webhooks",
  commands: [
    {
      name: "create",
      summary: "Creates an app in a project and prints its id, connect link and token (shown once).",
      details:
        "--permissions takes names separated by commas, e.g. agenda:read,attendees:read, out of:\n" +
        `  ${allPermissions.join(", ")}\n` +
        '--permissions "" creates an app with none, which reads only the basic fields (name, dates,\n' +
        "venue, …) of the projects it reaches.",
      options: {
        project: requiredFlag("ID", "the app's home project (4 characters)"),
        name: requiredFlag("N", "shown on the connect page"),
        permissions: {
          type: "string",
          placeholder: "a,b",
          required: true,
          allowEmpty: true,
          description: 'permission names separated by commas ("" for none)',
        },
        description: { type: "string", placeholder: "D", description: "shown on the connect page" },
        ...urlOptions,
      },
      async run(input) {
        const permissions = permissionNames(input);
        const { withServices } = await import("../context.js");
        const { systemActor } = await import("../../modules/access/actor.js");
        const created = await withServices(input.io, (services) =>
          services.apps.createApp(systemActor, {
            projectId: input.requiredString("project"),
            name: input.requiredString("name"),
            description: input.string("description"),
            permissions,
            ...urlInput(input),
          }),
        );
        printToken(
          input,
          created,
          `Created app "${created.app.name}" in project ${created.app.projectId}`,
          `Lost it? \`eventgraph apps rotate-token --app ${created.app.id}\` issues a new one and stops this one.`,
        );
        return 0;
      },
    },
    {
      name: "update",
      summary: "Changes an app's name, description, permissions, install-flow URLs or API version.",
      details:
        'Only the flags given change; an empty value (--redirect-url "") clears a URL or the description.\n' +
        "--api-version pins the version its requests without an Eventgraph-Version header are answered in.\n" +
        "Removing a permission takes effect at once everywhere; an added one waits for each linked\n" +
        "project's owners or admins to approve it (they are emailed and see a badge on Integrations).",
      options: {
        app: requiredFlag("A", "the app's id"),
        name: { type: "string", placeholder: "N", description: "shown on the connect page" },
        description: { type: "string", placeholder: "D", description: "shown on the connect page" },
        permissions: {
          type: "string",
          placeholder: "a,b",
          description: "the full new list, separated by commas",
        },
        ...urlOptions,
        "api-version": {
          type: "string",
          placeholder: "V",
          description: "the API version (YYYY-MM-DD) its requests are answered in",
        },
      },
      async run(input) {
        const permissions = input.string("permissions") === undefined ? undefined : permissionNames(input);
        const { withServices } = await import("../context.js");
        const { systemActor } = await import("../../modules/access/actor.js");
        const app = await withServices(input.io, async (services) => {
          const updated = await services.apps.updateApp(systemActor, {
            id: input.requiredString("app"),
            name: input.string("name"),
            description: input.string("description"),
            permissions,
            ...urlInput(input),
            apiVersion: input.string("api-version"),
          });
          // The approval emails go out in the background: finish them before the database closes.
          await services.updateRequests.settled();
          return updated;
        });
        printResult(
          input.io,
          input.json,
          {
            id: app.id,
            name: app.name,
            permissions: app.permissions,
            redirectUrl: app.redirectUrl,
            websiteUrl: app.websiteUrl,
            privacyPolicyUrl: app.privacyPolicyUrl,
            apiVersion: app.apiVersion,
          },
          [
            `Updated app "${app.name}" (${app.id})`,
            `  API version:    ${app.apiVersion}`,
            `  Permissions:    ${listOrNone(app.permissions)}`,
            `  Redirect URL:   ${app.redirectUrl ?? "none"}`,
            `  Website:        ${app.websiteUrl ?? "none"}`,
            `  Privacy policy: ${app.privacyPolicyUrl ?? "none"}`,
          ].join("\n"),
        );
        return 0;
      },
    },
    {
      name: "link",
      summary: "Connects a project to an app, authorized by one of the project's owners or admins.",
      details:
        "Does what that organizer's Authorize button on the connect page does: the app is granted its\n" +
        "current permissions in the project. The app's developer must have verified their email,\n" +
        "unless the organizer is a member of the app's own project. Linking again re-approves.",
      options: {
        app: requiredFlag("A", "the app's id"),
        project: requiredFlag("ID", "the project to connect"),
        as: requiredFlag("E", "email of an OWNER or ADMIN of that project, who authorizes it"),
      },
      async run(input) {
        const { withServices } = await import("../context.js");
        const link = await withServices(input.io, async (services) => {
          const organizer = await services.users.findByEmail(input.requiredString("as"));
          if (!organizer) throw notFound("User");
          return services.apps.authorize(
            { kind: "user", userId: organizer.id },
            { appId: input.requiredString("app"), projectId: input.requiredString("project") },
          );
        });
        printResult(
          input.io,
          input.json,
          {
            appId: link.appId,
            projectId: link.projectId,
            grantedPermissions: link.grantedPermissions,
            authorizedAt: link.authorizedAt,
          },
          [
            `Linked app ${link.appId} to project ${link.projectId} "${link.projectName}"`,
            `  Granted:       ${listOrNone(link.grantedPermissions)}`,
            `  Authorized by: ${link.authorizedBy?.email ?? "the operator"} at ${link.authorizedAt}`,
          ].join("\n"),
        );
        return 0;
      },
    },
    {
      name: "revoke",
      summary: "Ends an app's access to a linked project, from the very next request on.",
      details:
        "Revoking a project that is not linked (any more) succeeds and changes nothing. An app's home\n" +
        "project cannot be revoked: the app always reaches it, until the app is deleted.",
      options: {
        app: requiredFlag("A", "the app's id"),
        project: requiredFlag("ID", "the linked project"),
      },
      async run(input) {
        const appId = input.requiredString("app");
        const projectId = input.requiredString("project");
        const { withServices } = await import("../context.js");
        const { systemActor } = await import("../../modules/access/actor.js");
        const wasLinked = await withServices(input.io, (services) =>
          services.apps.revokeLink(systemActor, { appId, projectId }),
        );
        printResult(
          input.io,
          input.json,
          { appId, projectId, revoked: true, wasLinked },
          wasLinked
            ? `Revoked app ${appId}'s access to project ${projectId}`
            : `App ${appId} was not linked to project ${projectId}; nothing changed`,
        );
        return 0;
      },
    },
    {
      name: "rotate-token",
      summary: "Issues a new token for an app (shown once); the old one stops working at once.",
      options: {
        app: requiredFlag("A", "the app's id"),
      },
      async run(input) {
        const { withServices } = await import("../context.js");
        const { systemActor } = await import("../../modules/access/actor.js");
        const rotated = await withServices(input.io, (services) =>
          services.apps.rotateToken(systemActor, { id: input.requiredString("app") }),
        );
        printToken(
          input,
          rotated,
          `New token for app "${rotated.app.name}"`,
          "The previous token no longer works.",
        );
        return 0;
      },
    },
    ...webhookCommands,
    oauthClientCommand,
  ],
};
