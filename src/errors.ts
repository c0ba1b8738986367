/**
 * Stable error codes. Services throw AppError with one of these; `errorTable` below is the only
 * place that says what each means for a transport (HTTP status, user error or not).
 */
export const ErrorCode = {
  /** Bad, revoked or malformed token (thrown by the API's authentication step). */
  UNAUTHENTICATED: "UNAUTHENTICATED",
  /** The caller is known but lacks a permission or role (policies, GraphQL field guards). */
  FORBIDDEN: "FORBIDDEN",
  /** Missing, or not visible to the caller: the two are never distinguished. */
  NOT_FOUND: "NOT_FOUND",
  /** Input failed validation at a service boundary. */
  BAD_USER_INPUT: "BAD_USER_INPUT",
  /** A write conflicts with current state (duplicate email, ticket type sold out, ...). */
  CONFLICT: "CONFLICT",
  /** The HTTP request itself is malformed: not JSON, no `query`, a batch, bad variables JSON. */
  BAD_REQUEST: "BAD_REQUEST",
  /** The request's Accept header allows none of the media types the API answers with. */
  NOT_ACCEPTABLE: "NOT_ACCEPTABLE",
  /** A POST body that is not declared as JSON. */
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  /** A mutation sent with GET (GET serves queries only). */
  METHOD_NOT_ALLOWED: "METHOD_NOT_ALLOWED",
  /** The GraphQL document does not parse (GraphQL-over-HTTP request error). */
  GRAPHQL_PARSE_FAILED: "GRAPHQL_PARSE_FAILED",
  /** The document does not validate against the schema, or its variables do not coerce. */
  GRAPHQL_VALIDATION_FAILED: "GRAPHQL_VALIDATION_FAILED",
  /** The operation exceeds a cost, depth, token or alias limit. */
  QUERY_TOO_COMPLEX: "QUERY_TOO_COMPLEX",
  /**
   * An Idempotency-Key whose first request is still running (graphql/idempotency.ts): HTTP 409 of
   * the IETF Idempotency-Key draft.
   */
  IDEMPOTENCY_KEY_IN_USE: "IDEMPOTENCY_KEY_IN_USE",
  /**
   * An Idempotency-Key sent again with another request body (graphql/idempotency.ts): HTTP 422 of
   * the IETF Idempotency-Key draft.
   */
  IDEMPOTENCY_KEY_REUSED: "IDEMPOTENCY_KEY_REUSED",
  /**
   * The first request with this Idempotency-Key committed its change, but its server process stopped
   * before the answer was stored (graphql/idempotency.ts): HTTP 409, and it is not run again.
   */
  IDEMPOTENCY_ANSWER_LOST: "IDEMPOTENCY_ANSWER_LOST",
  /** The caller's points for the hour are spent. */
  RATE_LIMITED: "RATE_LIMITED",
  /** The request body is larger than MAX_BODY_BYTES. */
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  /** The operation ran past REQUEST_TIMEOUT_MS and was stopped (its writes rolled back). */
  TIMEOUT: "TIMEOUT",
  /** A dependency (the database, Redis) is unreachable; retrying later may succeed. */
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  /** A subscription stream was cut because its subscriber read events slower than they came (shared/live/live-hub.ts). */
  SLOW_SUBSCRIBER: "SLOW_SUBSCRIBER",
  /** Anything unexpected: logged with the request id, never shown in detail. */
  INTERNAL_SERVER_ERROR: "INTERNAL_SERVER_ERROR",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** One problem with one input field, as shown next to a form field or in `userErrors`. */
export interface FieldError {
  /** Path of the input field, e.g. ["input", "endsAt"]. */
  field: string[];
  message: string;
}

/** A domain error with a stable code; safe to show to the caller. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { fieldErrors?: FieldError[]; [key: string]: unknown } = {},
  ) {
    super(message);
    this.name = "AppError";
  }
}

/** The one answer for a missing or invisible resource, so existence never leaks. */
export function notFound(what: string): AppError {
  return new AppError(ErrorCode.NOT_FOUND, `${what} not found`);
}

/** A validation failure listing each bad field. */
export function badInput(fieldErrors: FieldError[]): AppError {
  const first = fieldErrors[0];
  const message = first ? `${first.field.join(".")}: ${first.message}` : "Invalid input";
  return new AppError(ErrorCode.BAD_USER_INPUT, message, { fieldErrors });
}

/** What one error code means for every transport. */
interface ErrorMeaning {
  /** The HTTP status of a response that fails with this code alone. */
  status: number;
  /**
   * An expected problem with what the user sent, fixable by them: mutations return it in
   * `userErrors`, forms show it next to their fields. Not logged as a failure of the service.
   */
  userError: boolean;
}

/**
 * The one table from error code to transport: the GraphQL handler, mutation payloads, dashboard
 * forms and error pages, and the CLI's exit codes all read it (issue 14: statuses were chosen in
 * eight places and disagreed).
 */
export const errorTable: Readonly<Record<ErrorCode, ErrorMeaning>> = {
  UNAUTHENTICATED: { status: 401, userError: false },
  FORBIDDEN: { status: 403, userError: false },
  NOT_FOUND: { status: 404, userError: false },
  BAD_USER_INPUT: { status: 400, userError: true },
  CONFLICT: { status: 409, userError: true },
  BAD_REQUEST: { status: 400, userError: false },
  NOT_ACCEPTABLE: { status: 406, userError: false },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, userError: false },
  METHOD_NOT_ALLOWED: { status: 405, userError: false },
  GRAPHQL_PARSE_FAILED: { status: 400, userError: false },
  GRAPHQL_VALIDATION_FAILED: { status: 400, userError: false },
  QUERY_TOO_COMPLEX: { status: 400, userError: false },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, userError: false },
  IDEMPOTENCY_KEY_REUSED: { status: 422, userError: false },
  IDEMPOTENCY_ANSWER_LOST: { status: 409, userError: false },
  RATE_LIMITED: { status: 429, userError: false },
  PAYLOAD_TOO_LARGE: { status: 413, userError: false },
  TIMEOUT: { status: 503, userError: false },
  SERVICE_UNAVAILABLE: { status: 503, userError: false },
  // Sent inside an open stream, never as a status: the 503 only says "try again", as a client should.
  SLOW_SUBSCRIBER: { status: 503, userError: false },
  INTERNAL_SERVER_ERROR: { status: 500, userError: false },
};

/** HTTP status for a code (from `errorTable`). */
export function httpStatusFor(code: ErrorCode): number {
  return errorTable[code].status;
}

/** HTTP status for any thrown value: the table's for an AppError, 500 for anything else. */
export function httpStatusOf(error: unknown): number {
  return error instanceof AppError ? httpStatusFor(error.code) : 500;
}

/** Whether `error` is an expected problem with the user's input (see `ErrorMeaning.userError`). */
export function isUserError(error: unknown): error is AppError {
  return error instanceof AppError && errorTable[error.code].userError;
}
