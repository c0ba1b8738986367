import { z } from "zod";
import { badInput } from "../errors.js";

/**
 * Validates input at a service boundary. On failure throws BAD_USER_INPUT listing every field
 * problem, in the shape mutations return as `userErrors` and forms show next to fields.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw badInput(
    result.error.issues.map((issue) => ({
      field: issue.path.map(String),
      message: issue.message,
    })),
  );
}

// Building blocks shared by the domain schemas, so the same rule reads the same everywhere.

// C0 and C1 control characters and DEL. PostgreSQL refuses NUL in text while SQLite stores it, so
// refusing them here is what makes both engines answer the same (a clear BAD_USER_INPUT).
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const controlCharacter = /[\u0000-\u001F\u007F-\u009F]/;
// The same, except tab, line feed and carriage return, which multi-line text legitimately holds.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const controlCharacterExceptNewlines = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
// Bidi embeddings, overrides and isolates: in a name shown to someone else they can make text read
// differently from what it is (U+202E turns an app named "moc.elgoog" into one that reads "google.com" on the consent page).
const bidiControl = /[\u202A-\u202E\u2066-\u2069]/;
// Characters that render as nothing: a name made only of them (and spaces) is empty.
const invisible = /[\s\u200B-\u200D\u2060\uFEFF\u180E]/gu;

const controlMessage = "must not contain control characters";
const bidiMessage = "must not contain bidirectional override characters";

/** Whether text holds a control character (newlines and tabs allowed when `multiline`). */
export function hasControlCharacters(text: string, multiline = false): boolean {
  return (multiline ? controlCharacterExceptNewlines : controlCharacter).test(text);
}

/** Whether text is empty once spaces and invisible characters (zero-width space, BOM...) are removed. */
function isBlank(text: string): boolean {
  return text.replace(invisible, "") === "";
}

/** Whether an identifier from outside (a row id inside a global id, a URL segment) is plain text. */
export function isCleanId(text: string): boolean {
  return text.length > 0 && text.length <= 200 && !hasControlCharacters(text);
}

// One line of text shown to people: no control characters, no bidi overrides, trimmed.
const singleLine = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !hasControlCharacters(v), controlMessage)
    .refine((v) => !bidiControl.test(v), bidiMessage);

/** Trimmed, non-empty one-line text of bounded length (names, titles). */
export const requiredText = (max: number) => singleLine(max).refine((v) => !isBlank(v), "must not be empty");

/** Optional one-line text: blank (or only invisible characters) becomes null, never "". */
export const optionalText = (max: number) =>
  singleLine(max)
    .nullish()
    .transform((v) => (v && !isBlank(v) ? v : null));

/** Optional multi-line text (descriptions, bios): newlines and tabs allowed, other controls not. */
export const optionalMultilineText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !hasControlCharacters(v, true), controlMessage)
    .nullish()
    .transform((v) => (v && !isBlank(v) ? v : null));

/** The id of a row or project as sent by a client: plain text, checked further by the lookup. */
export const idText = z.string().refine(isCleanId, "must be a valid id");

/** Search text: one line, bounded; blank means no search. */
export const searchText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !hasControlCharacters(v), controlMessage);

/**
 * Whether `value` is an ISO-8601 date-time with a time zone naming a real instant: `Date.parse`
 * alone shifts impossible dates (2026-02-30 becomes 2 March), so the fields are read back.
 */
export function isIsoDateTime(value: string): boolean {
  const match =
    /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):(\d{2}))$/.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second = "0", offsetHours = "0", offsetMinutes = "0"] = match
    .slice(1)
    .map((part) => part ?? "0");
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return false;
  if (Number(offsetHours) > 23 || Number(offsetMinutes) > 59) return false;
  return isCalendarDate(Number(year), Number(month), Number(day));
}

/** Whether year-month-day exists in the proleptic Gregorian calendar (no 30 February). */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** An ISO-8601 date-time with an offset or Z, normalized to UTC. */
export const dateTime = z
  .string()
  .refine(isIsoDateTime, {
    message: "must be an ISO-8601 date-time with a time zone, e.g. 2026-05-04T09:00:00Z",
  })
  .transform((v) => new Date(v).toISOString());

/** An http(s) URL. */
export const httpUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((v) => /^https?:\/\/[^\s]+$/i.test(v) && URL.canParse(v), { message: "must be an http(s) URL" });

/** An email address, trimmed; case is kept for display, compared lower-cased. */
export const email = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: "must be a valid email address" }));

/** An IANA time zone that this runtime knows, e.g. Europe/Berlin. */
export const timeZone = z
  .string()
  .trim()
  .refine((tz) => isTimeZone(tz), { message: "must be an IANA time zone such as Europe/Berlin" });

/** Whether `tz` names an IANA time zone this runtime knows (Europe/Berlin, UTC; not "EST"). */
export function isTimeZone(tz: string): boolean {
  if (!tz.includes("/") && tz !== "UTC") return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * A field an update may leave out but not clear (a name, a price). GraphQL passes an explicit null
 * on to the service, so the input type admits null and the service refuses it with the schema's
 * own "expected …, received null" issue: resolvers need no cast, and a renamed field fails to compile.
 */
export const notNull = <S extends z.ZodType>(schema: S) =>
  // The first stage only widens the input type; `schema` does all the checking and its issues stand.
  z
    .custom<z.input<S> | null>(() => true)
    .pipe(schema as unknown as z.ZodType<z.output<S>, z.input<S> | null>);

// Loopback hosts reach only the organizer's own machine: a developer running their app locally.
const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * An optional URL an app shows or sends organizers to (redirect, website, privacy policy): https,
 * or http on a loopback host (RFC 8252 §7.3, an app in development); no user:password part, which
 * would put a secret in organizers' browser history; blank becomes null.
 */
export const appUrl = z
  .string()
  .trim()
  .max(2000, "must be at most 2000 characters")
  .nullish()
  .transform((v) => (v ? v : null))
  // Shown as link text on the consent page: an override there could make it read as another site.
  .refine((v) => v === null || !bidiControl.test(v), bidiMessage)
  .refine((v) => v === null || !hasControlCharacters(v), controlMessage)
  .refine((v) => v === null || isAppUrl(v), {
    message: "must be an https:// URL (http:// only for localhost)",
  });

function isAppUrl(value: string): boolean {
  if (!/^https?:\/\/[^\s]+$/i.test(value) || !URL.canParse(value)) return false;
  const url = new URL(value);
  if (url.username || url.password) return false;
  return url.protocol === "https:" || loopbackHosts.has(url.hostname);
}
