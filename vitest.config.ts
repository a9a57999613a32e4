import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The slowest files, slowest first (the mean of two whole runs on a busy 2-core machine). The two
 * workers take files from one queue, so a long file started last keeps one worker busy after the
 * other has finished; started first, the short files fill in behind it and both workers end
 * together. Vitest orders by the last run's durations only once it has a cache, which a fresh clone
 * (CI) never has; it then orders by file size, which left a 40-second file to the end. A file not
 * listed here runs after these, in vitest's own order.
 */
const SLOWEST_FIRST = [
  'test/secrets/transit/malformed.test.ts',
  'test/clients/terraform-runs.test.ts',
  'test/platform/workspaces/permission-matrix.test.ts',
  'test/secrets/pki/managed-keys.test.ts',
  'test/platform/identity/permission-matrix.test.ts',
  'test/platform/workspaces/tags.test.ts',
  'test/secrets/http/no-server-errors.test.ts',
  'test/ops/config.test.ts',
  'test/secrets/auth/no-server-errors.test.ts',
  'test/ops/container.test.ts',
  'test/store/migrations.test.ts',
  'test/secrets/managed-keys/pkcs11.test.ts',
  'test/secrets/pki/key-pool.test.ts',
  'test/fuzz/openapi-routes.test.ts',
  'test/ops/readme-commands.test.ts',
  'test/platform/workspaces/dialect.test.ts',
  'test/ops/shutdown.test.ts',
  'test/platform/registry/secrets-at-rest.test.ts',
  'test/adapters/executor/terraform.test.ts',
  'test/platform/registry/vcs.test.ts',
  'test/ops/store.test.ts',
  'test/platform/workspaces/malformed.test.ts',
];

class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = SLOWEST_FIRST.indexOf(relative(file.project.config.root, file.moduleId));
      return index === -1 ? SLOWEST_FIRST.length : index;
    };
    // Array.prototype.sort is stable: the files not listed keep vitest's own order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/**
 * The files that load SoftHSM2. Each gives the library a private token directory through
 * `SOFTHSM2_CONF`, which SoftHSM reads once per process, at its first `C_Initialize`, so they
 * assume a process of their own. In a shared worker one of them once took the worker down (not
 * reproduced in isolation since). These files get a fresh process each.
 */
const SOFTHSM_FILES = ['test/secrets/managed-keys/pkcs11.test.ts', 'test/secrets/pki/managed-keys.test.ts'];

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: 'shared-workers', include: ['test/**/*.test.ts'], exclude: SOFTHSM_FILES } },
      { extends: true, test: { name: 'softhsm', include: SOFTHSM_FILES, isolate: true } },
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Each worker imports the application once and reuses it for every file it runs: with a fresh
    // module graph per file, importing the app cost about as much as the tests themselves. Every
    // test builds its own server and store, and nothing in src keeps state across servers.
    isolate: false,
    // Both cores: vitest's default leaves one idle on a 2-core machine, and most of a test's time
    // is spent waiting on sockets, child processes and the databases, not on the CPU.
    maxWorkers: 2,
    sequence: { sequencer: SlowestFirst },
    // The built package (the in-process API's test imports 'understudy') loads as Node loads it for
    // a user, not transformed by vite: its server half is a 5 MB chunk imported on first use.
    server: { deps: { external: [/\/dist\//] } },
    // Tests that need a server or tool this machine lacks print why they skip; with CI set they fail instead.
    reporters: ['default'],
  },
});
