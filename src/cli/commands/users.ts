import { notFound } from "../../errors.js";
import { type CommandGroup, requiredFlag, UsageError } from "../command.js";
import { printResult, readStdin } from "../output.js";

/** `eventgraph users …`: accounts created by the operator. */
export const usersCommands: CommandGroup = {
  name: "users",
  summary: "create and verify organizer accounts",
  commands: [
    {
      name: "create",
      summary: "Creates an organizer account (email not yet verified).",
      details:
        "Without --password the password is read from stdin when it is piped, so it stays out of\n" +
        "the shell history: printf '%s' \"$PASSWORD\" | eventgraph users create --email … --name …",
      options: {
        email: requiredFlag("E", "the login email"),
        name: requiredFlag("N", "the person's name"),
        password: {
          type: "string",
          placeholder: "P",
          description: "at least 10 characters; read from stdin when absent",
        },
      },
      async run(input) {
        let password = input.string("password");
        if (password === undefined) {
          if (input.io.stdin.isTTY) {
            throw new UsageError("missing --password (or pipe the password on stdin)");
          }
          password = await readStdin(input.io.stdin);
        }
        const { withServices } = await import("../context.js");
        const user = await withServices(input.io, (services) =>
          services.users.create({
            email: input.requiredString("email"),
            name: input.requiredString("name"),
            password,
          }),
        );
        printResult(
          input.io,
          input.json,
          { id: user.id, email: user.email },
          `Created user ${user.email} (${user.id}); verify the email with: eventgraph users verify --email ${user.email}`,
        );
        return 0;
      },
    },
    {
      name: "verify",
      summary: "Marks an account's email as verified, as if its verification link had been opened.",
      options: {
        email: requiredFlag("E", "the account's email"),
      },
      async run(input) {
        const { withServices } = await import("../context.js");
        const user = await withServices(input.io, async (services) => {
          const found = await services.users.findByEmail(input.requiredString("email"));
          if (!found) throw notFound("User");
          return services.users.markEmailVerified(found.id);
        });
        printResult(input.io, input.json, { id: user.id, email: user.email }, `Verified ${user.email}`);
        return 0;
      },
    },
  ],
};
