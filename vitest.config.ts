import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
    // Tests that need a server or tool this machine lacks print why they skip; with CI set they fail instead.
    reporters: ['default'],
  },
});
