import { ConfigError } from "../config.js";
import {
  type CliIo,
  type Command,
  type CommandGroup,
  commandUsage,
  parseCommandArgs,
  UsageError,
} from "./command.js";
import { accountsCommands } from "./commands/accounts.js";
import { appsCommands } from "./commands/apps.js";
import { attendeesCommands } from "./commands/attendees.js";
import { backupCommand, restoreCommand } from "./commands/backup.js";
import { copyDataCommand } from "./commands/copy-data.js";
import { demoCommand } from "./commands/demo.js";
import { migrateCommand } from "./commands/migrate.js";
import { ordersCommands } from "./commands/orders.js";
import { projectsCommands } from "./commands/projects.js";
import { serveCommand } from "./commands/serve.js";
import { usersCommands } from "./commands/users.js";
import { waitingListCommands } from "./commands/waiting-list.js";
import { describeFailure } from "./output.js";

// The command table: a new command or group is one file under commands/ plus one line here.
// Command files import the server and the services inside `run`, so help and usage errors answer
// without loading them.
const table: (Command | CommandGroup)[] = [
  serveCommand,
  migrateCommand,
  backupCommand,
  restoreCommand,
  copyDataCommand,
  demoCommand,
  usersCommands,
  accountsCommands,
  projectsCommands,
  appsCommands,
  attendeesCommands,
  ordersCommands,
  waitingListCommands,
];

const processIo: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
};

function isGroup(entry: Command | CommandGroup): entry is CommandGroup {
  return "commands" in entry;
}

function mainUsage(): string {
  const rows = table.flatMap((entry) =>
    isGroup(entry)
      ? entry.commands.map((c) => [`${entry.name} ${c.name}`, c.summary] as const)
      : [[entry.name, entry.summary] as const],
  );
  const width = Math.max(...rows.map(([name]) => name.length));
  return [
    "Usage: eventgraph <command> [options]",
    "",
    "Commands:",
    ...rows.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`),
    "",
    "Every command takes --help and --json. Exit codes: 0 success, 1 failure, 2 bad usage.",
    "eventgraph --version [--json] prints the release (see CHANGELOG.md).",
    "Configuration comes from the environment (DATABASE_URL, PORT, …; see README.md).",
    "",
  ].join("\n");
}

function groupUsage(group: CommandGroup): string {
  const width = Math.max(...group.commands.map((c) => c.name.length));
  return [
    `Usage: eventgraph ${group.name} <command> [options]`,
    "",
    `Commands (${group.summary}):`,
    ...group.commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    `Run eventgraph ${group.name} <command> --help for its options.`,
    "",
  ].join("\n");
}

const isVersion = (arg: string | undefined) => arg === "--version" || arg === "-V";

const isHelp = (arg: string | undefined) => arg === "--help" || arg === "-h" || arg === "help";

/** Runs one `eventgraph` invocation and resolves to its exit code: 0 success, 1 failure, 2 bad usage. */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const usageError = (message: string, usage: string) => {
    io.stderr.write(`error: ${message}\n\n${usage}`);
    return 2;
  };

  const [first, ...rest] = argv;
  if (isHelp(first)) {
    io.stdout.write(mainUsage());
    return 0;
  }
  if (isVersion(first)) {
    const extra = rest.filter((arg) => arg !== "--json");
    if (extra.length > 0) return usageError(`unexpected argument ${JSON.stringify(extra[0])}`, mainUsage());
    const { version } = await import("../version.js");
    const json = rest.length > 0;
    io.stdout.write(json ? `${JSON.stringify({ version })}\n` : `eventgraph ${version}\n`);
    return 0;
  }
  if (first === undefined) return usageError("no command given", mainUsage());
  const entry = table.find((e) => e.name === first);
  if (!entry) return usageError(`unknown command ${JSON.stringify(first)}`, mainUsage());

  let command: Command;
  let path: string;
  let args: string[];
  if (isGroup(entry)) {
    const [sub, ...subArgs] = rest;
    if (isHelp(sub)) {
      io.stdout.write(groupUsage(entry));
      return 0;
    }
    const found = entry.commands.find((c) => c.name === sub);
    if (!found) {
      const what =
        sub === undefined
          ? `no ${entry.name} command given`
          : `unknown command ${JSON.stringify(`${entry.name} ${sub}`)}`;
      return usageError(what, groupUsage(entry));
    }
    [command, path, args] = [found, `${entry.name} ${found.name}`, subArgs];
  } else {
    [command, path, args] = [entry, entry.name, rest];
  }

  try {
    const { input, help } = parseCommandArgs(command, args, io);
    if (help) {
      io.stdout.write(commandUsage(path, command));
      return 0;
    }
    return await command.run(input);
  } catch (error) {
    if (error instanceof UsageError) return usageError(error.message, commandUsage(path, command));
    // A ConfigError already lists one problem per line.
    io.stderr.write(
      error instanceof ConfigError ? `${error.message}\n` : `error: ${describeFailure(error)}\n`,
    );
    return 1;
  }
}
