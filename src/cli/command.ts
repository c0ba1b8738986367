import { parseArgs } from "node:util";

/**
 * Where a command reads and writes, and the environment it is configured from: the bin passes the
 * process's own; tests pass their own and run commands in-process.
 */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** The variables config.ts reads (DATABASE_URL, PORT, BASE_URL, …). */
  env: NodeJS.ProcessEnv;
}

/** Bad usage (unknown flag, missing or malformed value): exit code 2 with the command's usage. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** One flag of a command, as shown in its help. */
interface OptionSpec {
  type: "string" | "boolean";
  description: string;
  /** Placeholder in the usage line, e.g. "E" for `--email E`. */
  placeholder?: string;
  required?: boolean;
  /** A required flag whose empty value (`--flag ""`) is meaningful, e.g. "no permissions". */
  allowEmpty?: boolean;
}

/** A required string flag: `--app A`, shown with its placeholder and described in the help. */
export function requiredFlag(placeholder: string, description: string): OptionSpec {
  return { type: "string", placeholder, required: true, description };
}

/** What a command's `run` receives: its parsed flags, the output mode and the streams. */
export interface CommandInput {
  /** The value of a string flag; required flags are checked before `run` is called. */
  string(name: string): string | undefined;
  /** The value of a required string flag. */
  requiredString(name: string): string;
  flag(name: string): boolean;
  json: boolean;
  io: CliIo;
}

/** A command: `eventgraph serve`, or `eventgraph users create` inside a group. */
export interface Command {
  name: string;
  summary: string;
  /** Extra lines shown under the usage by `--help`. */
  details?: string;
  options: Record<string, OptionSpec>;
  /** Resolves to the exit code. */
  run(input: CommandInput): Promise<number>;
}

/** Commands sharing a first word (`users create`, `users verify`). */
export interface CommandGroup {
  name: string;
  summary: string;
  commands: Command[];
}

// Every command accepts these; they are listed once in each command's help.
const commonOptions: Record<string, OptionSpec> = {
  json: { type: "boolean", description: "print exactly one JSON object on stdout" },
  help: { type: "boolean", description: "show this help" },
};

/** The usage text of one command, `path` being e.g. "users create". */
export function commandUsage(path: string, command: Command): string {
  const options = { ...command.options, ...commonOptions };
  const synopsis = Object.entries(options)
    .map(([name, spec]) => {
      const text = spec.type === "string" ? `--${name} ${spec.placeholder ?? "VALUE"}` : `--${name}`;
      return spec.required ? text : `[${text}]`;
    })
    .join(" ");
  const width = Math.max(
    ...Object.entries(options).map(
      ([n, s]) => n.length + (s.type === "string" ? (s.placeholder ?? "VALUE").length + 1 : 0),
    ),
  );
  const lines = Object.entries(options).map(([name, spec]) => {
    const label = spec.type === "string" ? `${name} ${spec.placeholder ?? "VALUE"}` : name;
    return `  --${label.padEnd(width)}  ${spec.description}`;
  });
  return [
    `Usage: eventgraph ${path} ${synopsis}`,
    "",
    command.summary,
    ...(command.details ? ["", command.details] : []),
    "",
    "Options:",
    ...lines,
    "",
  ].join("\n");
}

/** Parses a command's flags strictly; throws UsageError for anything it does not declare. */
export function parseCommandArgs(
  command: Command,
  args: string[],
  io: CliIo,
): { input: CommandInput; help: boolean } {
  const options = { ...command.options, ...commonOptions };
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: Object.fromEntries(Object.entries(options).map(([name, spec]) => [name, { type: spec.type }])),
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(describeParseError(error as Error & { code?: string }));
  }
  const help = values.help === true;
  if (!help) {
    const missing = Object.entries(command.options)
      .filter(
        ([name, spec]) =>
          spec.required && (values[name] === undefined || (values[name] === "" && !spec.allowEmpty)),
      )
      .map(([name]) => `--${name}`);
    if (missing.length > 0) throw new UsageError(`missing required ${missing.join(", ")}`);
  }
  const string = (name: string) => {
    const value = values[name];
    return typeof value === "string" ? value : undefined;
  };
  return {
    help,
    input: {
      string,
      requiredString(name) {
        const value = string(name);
        if (value === undefined) throw new UsageError(`missing required --${name}`);
        return value;
      },
      flag: (name) => values[name] === true,
      json: values.json === true,
      io,
    },
  };
}

// node's messages suggest `--` tricks that do not apply here; say the essential part.
function describeParseError(error: Error & { code?: string }): string {
  const quoted = /'([^']+)'/.exec(error.message)?.[1];
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${quoted ?? error.message}`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument ${quoted ?? error.message}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return error.message.replace(/^Option /, "option ");
    default:
      return error.message;
  }
}

/** Parses a whole-number flag within bounds; a bad value is bad usage. */
export function integerFlag(input: CommandInput, name: string, min: number, max: number): number | undefined {
  const raw = input.string(name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new UsageError(
      `--${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})`,
    );
  }
  return value;
}
