import { notFound } from "../../errors.js";
import { type CommandGroup, requiredFlag } from "../command.js";
import { printResult } from "../output.js";

/** `eventgraph accounts …`: whole accounts, as the operator handles a person's request. */
export const accountsCommands: CommandGroup = {
  name: "accounts",
  summary: "erase organizer and developer accounts",
  commands: [
    {
      name: "erase",
      summary: "Erases an account (GDPR Art. 17): its name and email everywhere, sessions, memberships.",
      details:
        "Refused while the account is the only owner of a real project (the message names it); test\n" +
        'projects only it owns are deleted. The audit log keeps its entries under "Erased user" and\n' +
        "records that the operator erased it. Attendee registrations under the same address belong to\n" +
        "their organizers: eventgraph attendees erase --attendee ID erases those.",
      options: {
        email: requiredFlag("E", "the account's email"),
      },
      async run(input) {
        const { withServices } = await import("../context.js");
        const result = await withServices(input.io, async (services) => {
          const user = await services.users.findByEmail(input.requiredString("email"));
          if (!user) throw notFound("User");
          const { systemActor } = await import("../../modules/access/actor.js");
          return services.accountErasure.erase(systemActor, user.id);
        });
        const deleted = result.deletedTestProjects;
        printResult(
          input.io,
          input.json,
          result,
          `Erased account ${result.id}${deleted.length > 0 ? `; deleted its test projects ${deleted.join(", ")}` : ""}`,
        );
        return 0;
      },
    },
  ],
};
