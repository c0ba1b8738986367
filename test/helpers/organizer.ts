import type { CreateProjectInput } from "../../src/modules/projects/projects.service.js";
import type { Services } from "../../src/services.js";
import { createProject, createUser, userActor } from "./factories.js";

/**
 * A new verified user who owns a new project, with the actor their dashboard calls act as: the
 * start of most tests. `name` is the user's; `project` overrides the project's fields.
 */
export async function createOrganizer(
  services: Services,
  options: { name?: string; project?: Partial<CreateProjectInput> } = {},
) {
  const user = await createUser(services, options.name === undefined ? {} : { name: options.name });
  const { project } = await createProject(services, { ownerId: user.id, input: options.project });
  return { user, actor: userActor(user.id), project };
}
