import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Tests that need a server or tool this machine lacks print why they skip; with CI set they fail instead.
    reporters: ['default'],
  },
});
