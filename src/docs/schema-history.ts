import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type Change, CriticalityLevel, diff } from "@graphql-inspector/core";
import {
  buildSchema,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
} from "graphql";

/**
 * The committed schema file of the first API version, relative to the repository root; each later
 * version has its own (`snapshotFile` in graphql/versions/api-versions.ts), checked the same way.
 * @internal Exported for its tests only (knip --production checks that nothing else uses it).
 */
export const schemaFile = "schema.graphql";

/** The repository root: this file sits at dist/src/docs/ once compiled. */
export const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));

// The deprecation policy: a reason ends with "Removal after YYYY-MM-DD." (see docs/versioning.md).
const removalDatePattern = /Removal after (\d{4}-\d{2}-\d{2})\./;

/** The removal date a deprecation reason announces, or undefined when it names none. */
export function removalDate(reason: string | null | undefined): string | undefined {
  return reason?.match(removalDatePattern)?.[1];
}

/** One schema change between two versions, as the changelog shows it. */
interface SchemaChange {
  criticality: "BREAKING" | "DANGEROUS" | "NON_BREAKING";
  message: string;
  path: string | undefined;
}

/**
 * A change of `schema.graphql` made by one commit (against one of its parents).
 * @internal Exported for the breaking-change check in schema.test.ts (knip --production).
 */
export interface SchemaRevision {
  commit: string;
  /** Commit time, ISO-8601. */
  date: string;
  subject: string;
  /** The blob of schema.graphql before the commit; undefined when the commit added the file. */
  before: string | undefined;
  after: string;
}

/**
 * A breaking change that was not announced with @deprecated in the earlier version.
 * @internal Exported for the breaking-change check in schema.test.ts (knip --production).
 */
export interface Violation {
  /** The commit that made it, or "working tree". */
  where: string;
  message: string;
}

function git(args: string[], root: string): string {
  return execFileSync("git", ["-C", root, ...args], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "ignore"],
  });
}

/** Whether `root` is a git checkout with git available (a packaged install may be neither). */
function hasGitHistory(root = repositoryRoot): boolean {
  try {
    git(["rev-parse", "--verify", "HEAD"], root);
    return true;
  } catch {
    return false;
  }
}

/**
 * Every change of schema.graphql in the history of HEAD. `-m` splits a merge into one diff per
 * parent, so each pair compared is a real parent → child step, never two sibling branches.
 * `firstParent` keeps only main's own line: what the changelog shows.
 * @internal Exported for the breaking-change check in schema.test.ts (knip --production).
 */
export function schemaRevisions(
  options: { root?: string; firstParent?: boolean; file?: string } = {},
): SchemaRevision[] {
  const root = options.root ?? repositoryRoot;
  const file = options.file ?? schemaFile;
  const out = git(
    [
      "log",
      "-m",
      ...(options.firstParent ? ["--first-parent"] : ["--full-history"]),
      "--no-renames",
      "--raw",
      "--no-abbrev",
      "--format=commit%x09%H%x09%cI%x09%s",
      "HEAD",
      "--",
      file,
    ],
    root,
  );
  const revisions: SchemaRevision[] = [];
  let current: { commit: string; date: string; subject: string } | undefined;
  for (const line of out.split("\n")) {
    if (line.startsWith("commit\t")) {
      const [, commit = "", date = "", subject = ""] = line.split("\t");
      current = { commit, date, subject };
    } else if (line.startsWith(":") && current) {
      // :<old mode> <new mode> <old blob> <new blob> <status>\t<path>
      const [meta = "", path] = line.split("\t");
      const [, , before = "", after = "", status = ""] = meta.split(" ");
      if (path !== file || status === "D") continue;
      revisions.push({ ...current, before: /^0+$/.test(before) ? undefined : before, after });
    }
  }
  return revisions;
}

/** The text of a blob of the repository. */
function readBlob(blob: string, root = repositoryRoot): string {
  return git(["cat-file", "blob", blob], root);
}

/** The schema file committed at HEAD, or undefined when HEAD has none. */
function committedSchema(root: string, file: string): string | undefined {
  try {
    return git(["show", `HEAD:${file}`], root);
  } catch {
    return undefined;
  }
}

/** Every change from one schema version to the next, breaking ones first. */
async function schemaChanges(before: string, after: string): Promise<SchemaChange[]> {
  const changes = await diff(buildSchema(before), buildSchema(after));
  const order = { BREAKING: 0, DANGEROUS: 1, NON_BREAKING: 2 };
  return changes
    .map((change: Change) => ({
      criticality: change.criticality.level as SchemaChange["criticality"],
      message: change.message,
      path: change.path,
    }))
    .sort((a, b) => order[a.criticality] - order[b.criticality]);
}

/**
 * The breaking changes from one schema to another (one API version's to the next's), with the
 * schema coordinate each concerns.
 * @internal Exported for the check in schema.test.ts that a version declares its breaking changes.
 */
export async function breakingChanges(before: string, after: string): Promise<SchemaChange[]> {
  return (await schemaChanges(before, after)).filter((change) => change.criticality === "BREAKING");
}

/**
 * The breaking changes from `before` to `after` that `before` did not announce: a removed or
 * incompatibly changed field, argument, input field or enum value must carry @deprecated in the
 * earlier version; a removed type must only be reachable through deprecated fields. A removal made
 * before the date the deprecation announced is refused too, when `changedAt` is known.
 * @internal Exported for the breaking-change check in schema.test.ts (knip --production).
 */
export async function unannouncedBreakingChanges(
  before: string,
  after: string,
  changedAt?: string,
): Promise<string[]> {
  const old = buildSchema(before);
  const changes = await diff(old, buildSchema(after));
  const problems: string[] = [];
  for (const change of changes) {
    if (change.criticality.level !== CriticalityLevel.Breaking) continue;
    const reason = deprecationOf(old, change.path);
    if (reason === undefined) {
      problems.push(`${change.message} (${change.path ?? "schema"} was not deprecated first)`);
      continue;
    }
    const date = removalDate(reason);
    if (date && changedAt && changedAt.slice(0, 10) < date) {
      problems.push(`${change.message} before its announced removal date ${date}`);
    }
  }
  return problems;
}

/**
 * The deprecation reason that covers a schema coordinate (`Type`, `Type.member`, `Type.field.arg`)
 * in `schema`: the element's own, its field's, or for a whole type the one shared by every
 * reference to it. Undefined when nothing about it was deprecated.
 */
function deprecationOf(schema: GraphQLSchema, path: string | undefined): string | undefined {
  if (!path) return undefined;
  const [typeName = "", member, argName] = path.split(".");
  const type = schema.getType(typeName);
  if (!type) return undefined;
  if (member !== undefined) {
    const own = memberDeprecation(type, member, argName);
    if (own !== undefined) return own;
  }
  return typeDeprecation(schema, type);
}

function memberDeprecation(type: GraphQLNamedType, member: string, argName?: string): string | undefined {
  if (isObjectType(type) || isInterfaceType(type)) {
    const field = type.getFields()[member];
    if (!field) return undefined;
    if (field.deprecationReason) return field.deprecationReason;
    const arg = argName ? field.args.find((a) => a.name === argName) : undefined;
    return arg?.deprecationReason ?? undefined;
  }
  if (isInputObjectType(type)) return type.getFields()[member]?.deprecationReason ?? undefined;
  if (isEnumType(type)) return type.getValue(member)?.deprecationReason ?? undefined;
  return undefined;
}

// A type cannot carry @deprecated itself; it is announced for removal when every field, argument
// and input field that leads to it is deprecated (and something does).
function typeDeprecation(schema: GraphQLSchema, target: GraphQLNamedType): string | undefined {
  const reasons: (string | null | undefined)[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith("__")) continue;
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields()) as GraphQLField<unknown, unknown>[]) {
        if (getNamedType(field.type) === target) reasons.push(field.deprecationReason);
        for (const arg of field.args) {
          if (getNamedType(arg.type) === target)
            reasons.push(arg.deprecationReason ?? field.deprecationReason);
        }
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (getNamedType(field.type) === target) reasons.push(field.deprecationReason);
      }
    }
  }
  if (reasons.length === 0 || reasons.some((r) => !r)) return undefined;
  return reasons[0] ?? undefined;
}

/**
 * Checks every step of one version's schema file (schema.graphql by default) along main's own line
 * (a merge is one step against what main had before it: a breaking change a branch brings in shows
 * there), and the working tree against HEAD. A branch's own steps are not checked: a type added and
 * taken out again before the branch landed was never served. A version's file starts as a new file,
 * with no step to check: what it changed against the version before is checked in schema.test.ts.
 * @internal Exported for the breaking-change check in schema.test.ts (knip --production).
 */
export async function historyViolations(
  root = repositoryRoot,
  workingTree?: string,
  file = schemaFile,
): Promise<{ checked: number; violations: Violation[] }> {
  const violations: Violation[] = [];
  let checked = 0;
  const seen = new Set<string>();
  for (const revision of schemaRevisions({ root, firstParent: true, file })) {
    if (!revision.before) continue;
    const key = `${revision.before}..${revision.after}`;
    if (seen.has(key)) continue;
    seen.add(key);
    checked++;
    const problems = await unannouncedBreakingChanges(
      readBlob(revision.before, root),
      readBlob(revision.after, root),
      revision.date,
    );
    for (const message of problems) {
      violations.push({ where: `${revision.commit.slice(0, 10)} ${revision.subject}`, message });
    }
  }
  const head = committedSchema(root, file);
  if (head && workingTree !== undefined && head !== workingTree) {
    checked++;
    const today = new Date().toISOString();
    for (const message of await unannouncedBreakingChanges(head, workingTree, today)) {
      violations.push({ where: "working tree", message });
    }
  }
  return { checked, violations };
}

/** One entry of the schema changelog: a commit on main's line that changed the schema. */
export interface ChangelogEntry {
  commit: string;
  date: string;
  subject: string;
  changes: SchemaChange[];
}

/**
 * The schema changelog from git history, newest first, made by the same diff tool as the check.
 * Undefined when the service runs without its git history (a packaged install).
 */
export async function schemaChangelog(root = repositoryRoot): Promise<ChangelogEntry[] | undefined> {
  if (!hasGitHistory(root)) return undefined;
  const entries: ChangelogEntry[] = [];
  for (const revision of schemaRevisions({ root, firstParent: true })) {
    const after = readBlob(revision.after, root);
    const changes = revision.before
      ? await schemaChanges(readBlob(revision.before, root), after)
      : [{ criticality: "NON_BREAKING" as const, message: "Schema first published.", path: undefined }];
    if (changes.length > 0) entries.push({ ...revision, changes });
  }
  return entries;
}
