/**
 * The size of a GraphQL answer as the cost limit counts it: every field, `__typename` aside, and at
 * least 1 per object. Tests hold the computed cost of an operation to be no less than this.
 */
export function answerSize(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + answerSize(item), 0);
  if (value === null || typeof value !== "object") return 0;
  let size = 0;
  for (const [key, inner] of Object.entries(value)) {
    if (key !== "__typename") size += 1 + answerSize(inner);
  }
  return Math.max(1, size);
}
