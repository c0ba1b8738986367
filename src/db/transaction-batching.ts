import type pg from "pg";

/**
 * Statements of `reusableQuery` marked `sentWithCommit`. Within a PostgreSQL transaction each is held
 * back and sent in the round trip of what follows it, at the latest the COMMIT. Only for statements
 * whose result nobody reads: the audit entry, and the project's version bump (the last statement of
 * every write). The bump locks the project's version row until the commit; sent alone, the lock
 * was held across two round trips and the event-loop wait between them, and every write of the
 * project queued behind it.
 */
export const sentWithCommit = new Set<string>();

/**
 * Statements of `reusableQuery` marked `readAhead`: reads a transaction may issue before it needs
 * them (ProjectChanges' read-aheads). Issued before anything of the transaction was sent, such a
 * read waits for the round trip of the transaction's first statement, and its promise settles when
 * that round trip answers; if no statement follows in the same event-loop turn, it goes alone then,
 * so a caller awaiting it is never stranded. Issued later, it runs as any statement.
 */
export const readAhead = new Set<string>();

type Run = (sql: string, parameters: readonly unknown[]) => Promise<pg.QueryResult>;

/** The name of a named statement (see reusableQuery) and whether this connection has prepared it. */
export type NamedStatement = (sql: string) => { name: string; prepared: boolean } | undefined;

// What the client answers for a statement it has not sent yet (Kysely reads nothing of it); the real
// outcome comes with the round trip that carries it.
const notSentYet = { command: "UPDATE", rowCount: 1, rows: [], fields: [] } as unknown as pg.QueryResult;

/** A statement waiting for a round trip; a read-ahead's caller waits for its own result. */
interface Unsent {
  text: string;
  settle?: { resolve: (result: pg.QueryResult) => void; reject: (error: unknown) => void };
}

/**
 * Fewer round trips per PostgreSQL transaction, for one checked-out client: BEGIN is not sent alone
 * but with the transaction's first statement, statements marked `sentWithCommit` go with the next
 * one or the COMMIT, and those marked `readAhead` with the next one. Text without parameters goes
 * by the simple protocol, which takes several statements at once and answers each, so those
 * statements are sent with their parameters written in as escaped literals (pg sends parameters
 * untyped, so a literal means the same). A statement prepared on this connection is written
 * `execute <name>(literals)`: PostgreSQL then neither parses nor plans it again, which was a fifth
 * of its CPU time per check-in (the webhook subscribers' union of joins above all). A named
 * statement not yet prepared here, or one that cannot be written so (a parameter not a string or
 * number, a quote in its text), first sends what is pending, then goes alone, which prepares it;
 * order is always kept. An error aborts the transaction as before: the COMMIT fails and Kysely
 * rolls back; the read-aheads of a failed round trip fail with it.
 */
export function batchingTransactions(client: pg.PoolClient, run: Run, namedStatement: NamedStatement): Run {
  let inTransaction = false;
  let begun = false;
  let pending: Unsent[] = [];
  // Sends the unsent statements, then `last` if given, in one round trip; answers the last result.
  const send = (unsent: Unsent[], last?: string): Promise<pg.QueryResult> => {
    const texts = unsent.map((u) => u.text);
    if (last !== undefined) texts.push(last);
    return run(texts.join("; "), []).then(
      (answer) => {
        const results = Array.isArray(answer) ? (answer as pg.QueryResult[]) : [answer];
        unsent.forEach((u, i) => {
          const result = results[i];
          if (result) u.settle?.resolve(result);
          else u.settle?.reject(new Error("A batched statement got no result"));
        });
        return results[results.length - 1] as pg.QueryResult;
      },
      (error: unknown) => {
        for (const u of unsent) u.settle?.reject(error);
        throw error;
      },
    );
  };
  const takePending = () => {
    const unsent = pending;
    pending = [];
    return unsent;
  };
  // A read-ahead still unsent at the end of this turn goes with what else is pending.
  const flushReadAheads = () => {
    if (!inTransaction || !pending.some((u) => u.settle)) return;
    begun = true;
    send(takePending()).catch(() => {});
  };
  return (sql, parameters) => {
    if (sql === "begin" && !inTransaction) {
      inTransaction = true;
      begun = false;
      pending = [{ text: "begin" }];
      return Promise.resolve(notSentYet);
    }
    if (!inTransaction) return run(sql, parameters);
    if (sql === "commit" || sql === "rollback") {
      inTransaction = false;
      const unsent = takePending();
      if (sql === "rollback") {
        const ended = new Error("The transaction ended before this read was sent");
        for (const u of unsent) u.settle?.reject(ended);
        return begun ? run(sql, parameters) : Promise.resolve(notSentYet);
      }
      // Only BEGIN pending: an empty transaction, nothing to send. Otherwise what is pending (BEGIN
      // too when every statement was held back) goes with the COMMIT.
      if (!begun && unsent.length === 1) return Promise.resolve(notSentYet);
      return send(unsent, "commit");
    }
    const text = inlined(client, sql, parameters, namedStatement);
    if (text !== undefined && sentWithCommit.has(sql)) {
      pending.push({ text });
      return Promise.resolve(notSentYet);
    }
    if (text !== undefined && !begun && readAhead.has(sql)) {
      const result = new Promise<pg.QueryResult>((resolve, reject) => {
        pending.push({ text, settle: { resolve, reject } });
      });
      setImmediate(flushReadAheads);
      return result;
    }
    begun = true;
    const unsent = takePending();
    if (unsent.length === 0) return run(sql, parameters);
    if (text !== undefined) return send(unsent, text);
    return send(unsent).then(() => run(sql, parameters));
  };
}

// The statement with its parameters written in as literals, or undefined when that could change
// it: a parameter that is not a string, a number or null, text where a `$` might not be a
// placeholder (a string literal, dollar quoting, a quoted name holding a `$`), or a statement that
// has a name but is not prepared on this connection yet (sent alone, it will be). A null is written
// NULL: pg sends a null parameter as an untyped NULL, the same thing.
function inlined(
  client: pg.PoolClient,
  sql: string,
  parameters: readonly unknown[],
  namedStatement: NamedStatement,
): string | undefined {
  const named = namedStatement(sql);
  if (named) return named.prepared ? executeText(client, named.name, parameters) : undefined;
  if (!parameters.every(isScalar)) return undefined;
  if (
    sql.includes("'") ||
    /\$(?!\d)/.test(sql) ||
    sql.match(/"[^"]*"/g)?.some((name) => name.includes("$"))
  ) {
    return undefined;
  }
  return sql.replace(/\$(\d+)/g, (_, n: string) => scalarLiteral(client, parameters[Number(n) - 1]));
}

type Scalar = string | number | null;
const isScalar = (value: unknown): value is Scalar =>
  value === null || typeof value === "string" || typeof value === "number";
const scalarLiteral = (client: pg.PoolClient, value: unknown) =>
  value === null ? "NULL" : quoted(client, String(value));

// A string as an SQL literal. pg's escapeLiteral builds it character by character, which was a tenth
// of a page's CPU for the 50 ids a loader reads; a text without a quote or a backslash (an id, a
// time) needs nothing escaped.
const quoted = (client: pg.PoolClient, text: string) =>
  /['\\]/.test(text) ? client.escapeLiteral(text) : `'${text}'`;
// An element of an array literal, double-quoted (so commas, braces and spaces are its own).
const element = (text: string) => `"${/["\\]/.test(text) ? text.replace(/["\\]/g, "\\$&") : text}"`;

/**
 * `execute <name>(literals)` of a statement prepared on this connection, or undefined when a
 * parameter cannot be written as a literal. Its parameters' types are the prepared statement's, so
 * a list of strings or numbers (the `= any($1)` of a loader) is written as an array literal too.
 */
export function executeText(
  client: pg.PoolClient,
  name: string,
  parameters: readonly unknown[],
): string | undefined {
  const literals: string[] = [];
  for (const value of parameters) {
    if (isScalar(value)) literals.push(scalarLiteral(client, value));
    else if (
      Array.isArray(value) &&
      value.every((item) => typeof item === "string" || typeof item === "number")
    ) {
      literals.push(quoted(client, `{${value.map((item) => element(String(item))).join(",")}}`));
    } else return undefined;
  }
  return literals.length === 0 ? `execute ${name}` : `execute ${name}(${literals.join(", ")})`;
}
