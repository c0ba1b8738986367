import { notFound } from "../../errors.js";
import { type CommandGroup, requiredFlag } from "../command.js";
import { printResult } from "../output.js";

/** `eventgraph projects …`: events created on an organizer's behalf. */
export const projectsCommands: CommandGroup = {
  name: "projects",
  summary: "create projects (events)",
  commands: [
    {
      name: "create",
      summary: "Creates a project owned by an existing user; a draft unless --publish is given.",
      options: {
        owner: requiredFlag("E", "email of the owner's account"),
        name: requiredFlag("N", "the event's name"),
        timezone: { type: "string", placeholder: "TZ", description: "IANA time zone (default UTC)" },
        publish: { type: "boolean", description: "make the project public right away" },
      },
      async run(input) {
        const { withServices } = await import("../context.js");
        const { project, baseUrl } = await withServices(input.io, async (services, config) => {
          const owner = await services.users.findByEmail(input.requiredString("owner"));
          if (!owner) throw notFound("User");
          const { systemActor } = await import("../../modules/access/actor.js");
          const created = await services.projects.create(
            owner.id,
            {
              name: input.requiredString("name"),
              timezone: input.string("timezone"),
              status: input.flag("publish") ? "PUBLISHED" : "DRAFT",
            },
            systemActor,
          );
          return { project: created, baseUrl: config.baseUrl };
        });
        printResult(
          input.io,
          input.json,
          { id: project.id, name: project.name },
          `Created project ${project.id} "${project.name}" (${project.status}): ${baseUrl}/b/${project.id}`,
        );
        return 0;
      },
    },
    {
      name: "create-test",
      summary:
        "Creates a test project for a developer: demo data, never published, an app with every permission.",
      options: {
        owner: requiredFlag("E", "email of the developer's account"),
      },
      async run(input) {
        const { withServices } = await import("../context.js");
        const { created, baseUrl } = await withServices(input.io, async (services, config) => {
          const owner = await services.users.findByEmail(input.requiredString("owner"));
          if (!owner) throw notFound("User");
          const { systemActor } = await import("../../modules/access/actor.js");
          return {
            created: await services.testProjects.create(owner.id, systemActor),
            baseUrl: config.baseUrl,
          };
        });
        const { project, token, appId } = created;
        printResult(
          input.io,
          input.json,
          { id: project.id, name: project.name, isTest: true, appId, token },
          [
            `Created TEST project ${project.id} "${project.name}": ${baseUrl}/b/${project.id}`,
            `API token of its "Test app" (every permission; shown once): ${token}`,
          ].join("\n"),
        );
        return 0;
      },
    },
    {
      name: "reset-test",
      summary: "Resets a test project's agenda, tickets and attendees to its initial demo data.",
      options: {
        project: requiredFlag("ID", "the test project's 4-character id"),
      },
      async run(input) {
        const { withServices } = await import("../context.js");
        const project = await withServices(input.io, async (services) => {
          const { systemActor } = await import("../../modules/access/actor.js");
          return services.testProjects.reset(systemActor, input.requiredString("project"));
        });
        printResult(
          input.io,
          input.json,
          { id: project.id, reset: true },
          `Reset TEST project ${project.id} to its initial demo data`,
        );
        return 0;
      },
    },
  ],
};
