import { GraphQLError, type GraphQLFormattedError } from "graphql";
import { AppError, ErrorCode } from "../errors.js";
import type { Logger } from "../logger.js";
import { apiErrors } from "../metrics/instruments.js";

/**
 * Turns any error raised while answering into what the client sees. Domain errors keep their code and
 * safe details; anything unexpected becomes INTERNAL_SERVER_ERROR with the request id to quote, and
 * its message, stack and SQL go to the log only.
 */
export function formatError(error: GraphQLError, requestId: string, logger: Logger): GraphQLFormattedError {
  const formatted = format(error, requestId, logger);
  apiErrors.labels(String(formatted.extensions?.code)).inc();
  return formatted;
}

function format(error: GraphQLError, requestId: string, logger: Logger): GraphQLFormattedError {
  const original = error.originalError;
  const base = { message: error.message, locations: error.locations, path: error.path };
  if (original instanceof AppError) {
    const { fieldErrors: _fieldErrors, ...details } = original.details;
    return { ...base, message: original.message, extensions: { code: original.code, ...details } };
  }
  if (!original || original instanceof GraphQLError) {
    const code = (error.extensions?.code as string | undefined) ?? ErrorCode.GRAPHQL_VALIDATION_FAILED;
    return { ...base, extensions: { ...error.extensions, code } };
  }
  logger.error({ err: original, requestId, path: error.path }, "Unexpected error while resolving a field");
  return {
    message: `Internal server error. Quote request id ${requestId} when reporting it.`,
    locations: error.locations,
    path: error.path,
    extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR, requestId },
  };
}

/** A request-level error (before execution) in the GraphQL error shape. */
export function requestError(code: ErrorCode, message: string, extensions: Record<string, unknown> = {}) {
  apiErrors.labels(code).inc();
  return { message, extensions: { code, ...extensions } };
}
