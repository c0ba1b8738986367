/**
 * True when a database error is a unique-constraint violation, on either engine. Writes that race
 * (two registrations with one email) are decided by a unique index; callers turn this into CONFLICT.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== "object" || error === null || !("code" in error)) return false;
  const code = (error as { code: unknown }).code;
  // PostgreSQL: SQLSTATE 23505; better-sqlite3: the extended result code name.
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
