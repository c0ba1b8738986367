import { createHash } from "node:crypto";

const modulus = 1n << 128n;

/**
 * An order-independent checksum of a table's rows: the sum, modulo 2^128, of a SHA-256 prefix of
 * each row. SQLite and PostgreSQL sort text differently (binary against the database's collation),
 * so a checksum that depended on row order would differ between two identical copies; a sum of
 * per-row digests does not, and it still changes when any one value of any one row changes.
 *
 * A value is hashed as its text: SQLite hands an INTEGER column's value back as a number,
 * PostgreSQL a bigint as a string, and both mean the same row.
 */
export class TableChecksum {
  private sum = 0n;
  rows = 0;

  /** Adds one row, its values in the table's column order. */
  add(row: readonly unknown[]): void {
    const canonical = JSON.stringify(row.map((value) => (value === null ? null : String(value))));
    const digest = createHash("sha256").update(canonical).digest();
    this.sum = (this.sum + digest.readBigUInt64BE(0) * (1n << 64n) + digest.readBigUInt64BE(8)) % modulus;
    this.rows += 1;
  }

  /** The checksum as 32 hex digits. */
  hex(): string {
    return this.sum.toString(16).padStart(32, "0");
  }
}
