import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

/**
 * Substring search through the FTS5 trigram indexes of migrations/0004_lists.sql
 * (`workspace_names`, `team_names`, `user_names`, kept by triggers). The trigram tokenizer needs
 * three characters; shorter text has no index to use and callers fall back to a scan. Matches are
 * candidates only: callers keep their exact, case-insensitive condition next to this one.
 */
export type TrigramIndex = 'workspace_names' | 'team_names' | 'user_names';

/** An FTS5 phrase matching `text` as a substring of any indexed column. */
export function trigramPhrase(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

export function indexable(text: string): boolean {
  return [...text].length >= 3;
}

/** `<rowid> IN (rows of the index containing text)`, or undefined when the text is too short. */
export function trigramCandidates(rowid: SQLWrapper, index: TrigramIndex, text: string): SQL | undefined {
  if (!indexable(text)) return undefined;
  return sql`${rowid} IN (SELECT rowid FROM ${sql.raw(index)} WHERE ${sql.raw(index)} MATCH ${trigramPhrase(text)})`;
}
