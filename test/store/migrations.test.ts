import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto.js';
import { MIGRATIONS_DIR, openStore } from '../../src/store/store.js';
import { journal, olderRelease } from './older-release.js';

/** How many migrations come before the one that added projects (and a default one per organization). */
const BEFORE_PROJECTS = journal.entries.findIndex((entry) => entry.tag === '0007_terraform_state');

describe('migrations', () => {
  it.each(journal.entries.slice(1).map((entry) => [entry.tag, entry.idx] as const))(
    'upgrade a store last migrated before %s in place, keeping its rows',
    (_tag, idx) => {
      const file = join(mkdtempSync(join(tmpdir(), 'understudy-store-')), 'old.sqlite');
      const old = new Database(file);
      migrate(drizzle(old), { migrationsFolder: olderRelease(idx) });
      old.prepare("INSERT INTO organizations (id, name, email, created_at, updated_at) VALUES ('org-old', 'old', 'a@b.c', 1, 1)").run();
      old
        .prepare(
          'INSERT INTO secret_tokens (id, accessor, policies, display_name, path, created_at) ' +
            "VALUES ('t', 'a', '[\"root\"]', 'root', 'auth/token/root', 1)",
        )
        .run();
      old.close();

      const store = openStore(file);
      try {
        expect(store.sqlite.prepare('SELECT name FROM organizations').all()).toEqual([{ name: 'old' }]);
        // Organizations from before projects get their default project (the id derives from theirs);
        // a store that already had projects keeps its rows as they were (this one was written around the API).
        const projects = store.sqlite.prepare('SELECT id, is_default AS isDefault FROM projects').all();
        expect(projects).toEqual(idx <= BEFORE_PROJECTS ? [{ id: 'prj-old', isDefault: 1 }] : []);
        // Secrets tokens stored by value in older releases are re-keyed by their hash.
        expect(store.sqlite.prepare('SELECT id FROM secret_tokens').all()).toEqual([{ id: sha256Hex('t') }]);
        const applied = store.sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number };
        expect(applied.n).toBe(journal.entries.length);
      } finally {
        store.close();
      }
    },
  );

  it('match the schema: drizzle-kit finds nothing left to generate', () => {
    const out = mkdtempSync(join(tmpdir(), 'understudy-drift-'));
    cpSync(MIGRATIONS_DIR, out, { recursive: true });
    const config = join(out, 'drizzle.config.json');
    // drizzle-kit reads `out` as relative to the working directory, even when it is absolute.
    writeFileSync(config, JSON.stringify({ dialect: 'sqlite', schema: 'src/store/schema/*.ts', out: relative(process.cwd(), out) }));
    const output = execFileSync('npx', ['drizzle-kit', 'generate', '--config', config, '--name', 'drift'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(output).toMatch(/No schema changes/);
  });
});
