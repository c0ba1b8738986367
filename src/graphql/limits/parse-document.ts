import { type DocumentNode, GraphQLError, Kind, Lexer, parse, Source, TokenKind } from "graphql";
import { AppError, ErrorCode } from "../../errors.js";
import { operationLimitDefaults, tooComplex } from "./operation-limits.js";

/**
 * Parses a GraphQL document, stopping after `maxTokens` tokens so a huge document costs no more
 * than the limit to reject. Throws QUERY_TOO_COMPLEX ("tokens is N, the limit is M") when the
 * document is too long and GRAPHQL_PARSE_FAILED with graphql-js's syntax message otherwise.
 */
export function parseDocument(
  source: string,
  maxTokens: number = operationLimitDefaults.maxTokens,
): DocumentNode {
  try {
    return parse(new Source(source, "request"), { maxTokens });
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    if (error.message.includes("tokens")) throw tooComplex("tokens", countTokens(source), maxTokens);
    throw new AppError(ErrorCode.GRAPHQL_PARSE_FAILED, error.message, {
      locations: error.locations ?? [],
    });
  }
}

// The parser stops at the limit without saying by how much it was exceeded; lexing the rest is
// cheap (the body size limit bounds it) and gives the client the real number.
function countTokens(source: string): number {
  const lexer = new Lexer(new Source(source));
  let count = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) count += 1;
  } catch {
    // A lexical error further on: the tokens counted so far already exceed the limit.
  }
  return count;
}

/**
 * The selections (fields, fragment spreads, inline fragments) written in the document, each
 * fragment counted once where it is defined: linear in the document, so it is measured before
 * validation, whose cost grows with the square of the selections sharing a name.
 */
export function countSelections(document: DocumentNode): number {
  let count = 0;
  const pending = document.definitions.flatMap((d) =>
    d.kind === Kind.OPERATION_DEFINITION || d.kind === Kind.FRAGMENT_DEFINITION ? [d.selectionSet] : [],
  );
  for (let set = pending.pop(); set; set = pending.pop()) {
    for (const selection of set.selections) {
      count += 1;
      if (selection.kind !== Kind.FRAGMENT_SPREAD && selection.selectionSet)
        pending.push(selection.selectionSet);
    }
  }
  return count;
}
