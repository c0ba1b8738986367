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

/** Trimmed, non-empty text of bounded length. */
export const requiredText = (max: number) =>
  z.string().trim().min(1, "must not be empty").max(max, `must be at most ${max} characters`);

/** Optional text: blank becomes null so the database never stores "". */
export const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .nullish()
    .transform((v) => (v ? v : null));

/** An ISO-8601 date-time with an offset or Z, normalized to UTC. */
export const dateTime = z
  .string()
  .refine(
    (v) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v) &&
      !Number.isNaN(Date.parse(v)),
    {
      message: "must be an ISO-8601 date-time with a time zone, e.g. 2026-05-04T09:00:00Z",
    },
  )
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

function isTimeZone(tz: string): boolean {
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
