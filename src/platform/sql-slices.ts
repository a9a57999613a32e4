/**
 * SQLite binds at most 32766 parameters a statement, and a request body may name any number of
 * workspaces or tags: statements built from such lists run once per slice, well under that limit.
 */
export const IDS_PER_STATEMENT = 500;

/** `items` in consecutive slices of at most `IDS_PER_STATEMENT`. */
export function inSlices<T>(items: readonly T[]): T[][] {
  const slices: T[][] = [];
  for (let start = 0; start < items.length; start += IDS_PER_STATEMENT) slices.push(items.slice(start, start + IDS_PER_STATEMENT));
  return slices;
}
