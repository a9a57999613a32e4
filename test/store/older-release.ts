import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS_DIR } from '../../src/store/store.js';

export interface Journal {
  entries: { idx: number; tag: string }[];
}

/** The migrations journal drizzle-kit keeps: every migration, oldest first. */
export const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as Journal;

/** A migrations folder holding only the first `count` migrations, as an older release shipped it. */
export function olderRelease(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-migrations-'));
  mkdirSync(join(dir, 'meta'));
  const entries = journal.entries.slice(0, count);
  writeFileSync(join(dir, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
  for (const entry of entries) cpSync(join(MIGRATIONS_DIR, `${entry.tag}.sql`), join(dir, `${entry.tag}.sql`));
  return dir;
}
