import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startProcess, tempDir } from './process.js';

// The README promises `npm install && npm start`; dist/ was built by `prepare` at install, and
// `pretest` rebuilt it if the source moved on since.
describe("the README's two commands", () => {
  const dir = tempDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('npm start prints the banner, its tokens work on both APIs, and SIGTERM stops it cleanly', async () => {
    const store = join(dir, 'state', 'understudy.sqlite');
    const server = await startProcess({
      command: ['npm', 'start'],
      detached: true,
      env: { UNDERSTUDY_PORT: '0', UNDERSTUDY_STORE: store },
    });
    let stopped = false;
    try {
      const { readyLine, exports } = server.banner;
      expect(readyLine).toMatch(
        /^understudy \d+\.\d+\.\d+\S* ready on http:\/\/127\.0\.0\.1:\d+ in \d+ ms \(dialect spec, edition self-hosted, store \S+\)$/,
      );
      expect(readyLine).toContain(`store ${store}`);
      expect(Object.keys(exports)).toEqual(['TFE_ADDRESS', 'TFE_TOKEN', 'VAULT_ADDR', 'VAULT_TOKEN']);
      const address = /ready on (\S+)/.exec(readyLine)?.[1];
      expect(exports.TFE_ADDRESS).toBe(address);
      expect(exports.VAULT_ADDR).toBe(address);
      // The docs URL is a comment line, so the export lines stay the only ones a script evaluates.
      expect(server.stdout()).toContain(`\n# API reference: ${address}/_emulator/docs\n`);

      const organization = await fetch(`${exports.TFE_ADDRESS}/api/v2/organizations/understudy`, {
        headers: { authorization: `Bearer ${exports.TFE_TOKEN}`, accept: 'application/vnd.api+json' },
      });
      expect(organization.status).toBe(200);
      expect(((await organization.json()) as { data: { id: string } }).data.id).toBe('understudy');

      const lookup = await fetch(`${exports.VAULT_ADDR}/v1/auth/token/lookup-self`, {
        headers: { 'X-Vault-Token': exports.VAULT_TOKEN as string },
      });
      expect(lookup.status).toBe(200);
      expect(((await lookup.json()) as { data: { policies: string[] } }).data.policies).toEqual(['root']);

      // Logs go to stderr only, so `npm start | grep ^export` stays clean.
      expect(server.stdout()).not.toMatch(/"level"/);

      const exit = await server.stop('SIGTERM');
      stopped = true;
      expect(exit.stderr).toContain('shutting down');
      expect(exit.stderr).not.toMatch(/^\s+at /m); // no stack trace
      // A clean close checkpoints the WAL and removes it; a killed process leaves it behind.
      expect(existsSync(store)).toBe(true);
      expect(existsSync(`${store}-wal`)).toBe(false);
    } finally {
      if (!stopped) await server.stop('SIGKILL');
    }
  });

  // Started from an unrelated directory with no UNDERSTUDY_SEED: the shipped seed must still load.
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'node dist/main.js, started from any directory, exits 0 on %s, as a process supervisor expects',
    async (signal) => {
      const server = await startProcess({ cwd: dir, env: { UNDERSTUDY_PORT: '0', UNDERSTUDY_STORE: ':memory:' } });
      const { exports } = server.banner;
      const organization = await fetch(`${exports.TFE_ADDRESS}/api/v2/organizations/understudy`, {
        headers: { authorization: `Bearer ${exports.TFE_TOKEN}` },
      });
      expect(organization.status).toBe(200);
      // The bundle still finds the API reference's assets, which live in node_modules.
      const asset = await fetch(`${exports.TFE_ADDRESS}/_emulator/docs/static/swagger-ui-bundle.js`);
      expect(asset.status).toBe(200);
      expect((await asset.text()).length).toBeGreaterThan(100_000);
      const exit = await server.stop(signal);
      expect(exit).toMatchObject({ code: 0, signal: null });
    },
  );
});
