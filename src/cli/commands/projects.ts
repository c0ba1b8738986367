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
  ],
};
