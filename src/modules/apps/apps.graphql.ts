import { notFound } from "../../errors.js";
import { builder } from "../../graphql/builder.js";
import { connectionTypes, toConnection } from "../../graphql/connections.js";
import { globalId } from "../../graphql/ids.js";
import { ProjectRef } from "../projects/projects.graphql.js";
import type { AuthenticatedApp } from "./apps.service.js";
import { PermissionEnum } from "./permissions.graphql.js";

export const ViewerRef = builder.objectRef<AuthenticatedApp>("Viewer");

/** Defines `Query.viewer`: the calling app, its permissions and the projects it reaches. */
export function defineViewerTypes(): void {
  ViewerRef.implement({
    description: "The app whose token made the request.",
    fields: (t) => ({
      id: t.id({ description: "Global id of the app.", resolve: (app) => globalId("App", app.appId) }),
      name: t.string({ description: "The app's name, as organizers see it.", resolve: (app) => app.appName }),
      permissions: t.field({
        type: [PermissionEnum],
        description:
          "The permissions the app asks for. A linked project may have granted fewer: see Project.viewerPermissions.",
        resolve: (app) => [...app.permissions],
      }),
      redirectUrl: t.string({
        nullable: true,
        description:
          "Where the connect page sends the organizer after Authorize (?project_id=…&state=…) or Cancel (?error=access_denied&state=…); null when not set.",
        resolve: async (app, _args, c) => (await c.services.apps.urlsOf(app.appId)).redirectUrl,
      }),
      websiteUrl: t.string({
        nullable: true,
        description: "The app's website, linked on its connect page; null when not set.",
        resolve: async (app, _args, c) => (await c.services.apps.urlsOf(app.appId)).websiteUrl,
      }),
      privacyPolicyUrl: t.string({
        nullable: true,
        description: "The app's privacy policy, linked on its connect page; null when not set.",
        resolve: async (app, _args, c) => (await c.services.apps.urlsOf(app.appId)).privacyPolicyUrl,
      }),
      homeProject: t.field({
        type: ProjectRef,
        description: "The project the app was created in; it reaches it without a link.",
        resolve: async (app, _args, c) => {
          const access = await c.access(app.homeProjectId);
          if (!access) throw notFound("Project");
          return c.services.projects.load(access);
        },
      }),
      projects: t.connection(
        {
          type: ProjectRef,
          description:
            "Every project the app can read: its home project, then projects linked to it, oldest link first.",
          resolve: (app, args, c) =>
            toConnection(
              args,
              (window) => c.services.apps.reachableProjects(app, window),
              () => c.services.apps.countReachableProjects(app),
            ),
        },
        ...connectionTypes("Project", "projects"),
      ),
    }),
  });

  builder.queryField("viewer", (t) =>
    t.field({
      type: ViewerRef,
      nullable: true,
      description: "The calling app; null for requests without a token.",
      resolve: (_root, _args, c) => {
        // The app's name, permissions and links are not project data: answers with them are not cached.
        c.noCache();
        return c.actor.kind === "app" ? (c.actor as AuthenticatedApp) : null;
      },
    }),
  );
}
