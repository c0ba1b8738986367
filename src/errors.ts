/**
 * Stable error codes. Services throw AppError with one of these; `httpStatusFor` and the GraphQL
 * error formatter are the only places that turn them into transport details.
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
  /** The HTTP request itself is malformed: not JSON, wrong content type, no `query`, a batch. */
  BAD_REQUEST: "BAD_REQUEST",
  GRAPHQL_PARSE_FAILED: "GRAPHQL_PARSE_FAILED",
  GRAPHQL_VALIDATION_FAILED: "GRAPHQL_VALIDATION_FAILED",
  QUERY_TOO_COMPLEX: "QUERY_TOO_COMPLEX",
  RATE_LIMITED: "RATE_LIMITED",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  TIMEOUT: "TIMEOUT",
  /** A dependency (the database) is unreachable for now: 503 with Retry-After, safe to retry. */
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
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

const statusByCode: Record<ErrorCode, number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  BAD_USER_INPUT: 400,
  CONFLICT: 409,
  BAD_REQUEST: 400,
  GRAPHQL_PARSE_FAILED: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  QUERY_TOO_COMPLEX: 400,
  RATE_LIMITED: 429,
  PAYLOAD_TOO_LARGE: 413,
  TIMEOUT: 503,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_SERVER_ERROR: 500,
};

/** HTTP status for a code, used by REST-ish routes (the GraphQL handler decides its own). */
export function httpStatusFor(code: ErrorCode): number {
  return statusByCode[code];
}
