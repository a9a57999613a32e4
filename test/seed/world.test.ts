import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { SeedError } from '../../src/seed/seed.js';
import { platform, ROOT_TOKEN, startServer, testConfig, type TestServer } from '../helpers/app.js';
import { writeSeed } from '../platform/identity/helpers.js';
import { v1 } from '../secrets/core/client.js';

const CI_TOKEN = 'ci-fixed-token-0001';
const SEED = {
  users: [{ username: 'admin', email: 'admin@world.test', 'site-admin': true }],
  organizations: [
    {
      name: 'world',
      email: 'owners@world.test',
      owners: ['admin'],
      workspaces: [
        { name: 'network', description: 'the VPC', 'tool-version': '1.5.7', tags: ['prod', 'team:net'] },
        { name: 'legacy', 'terraform-version': '0.10.0', 'execution-mode': 'local', 'global-remote-state': false },
      ],
      'run-tasks': [{ name: 'scanner', url: 'http://127.0.0.1:9/scan', description: 'security scan', 'hmac-key': 'shh' }],
    },
  ],
  secrets: {
    policies: [{ name: 'ci-read', policy: 'path "sys/mounts" { capabilities = ["read"] }' }],
    tokens: [
      {
        id: CI_TOKEN,
        accessor: 'ci-accessor',
        policies: ['ci-read'],
        'display-name': 'ci',
        meta: { job: 'nightly' },
        cubbyhole: { 'config/db': { user: 'app', password: 'from-the-seed' } },
      },
      { id: 'short-lived-token', ttl: '1h' },
    ],
  },
};

describe('a seed with workspaces, run tasks, policies, tokens and cubbyhole data', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_SEED: writeSeed(SEED) });
  });
  afterAll(() => server.close());

  const check = async () => {
    const listed = await platform(server, 'GET', '/organizations/world/workspaces?sort=name');
    const byName = Object.fromEntries(
      listed.body.data.map((entry: { attributes: { name: string } }) => [entry.attributes.name, entry.attributes]),
    );
    expect(byName.network).toMatchObject({
      description: 'the VPC',
      'tool-version': '1.5.7',
      'tag-names': ['prod', 'team:net'],
      'global-remote-state': true,
    });
    expect(byName.legacy).toMatchObject({ 'tool-version': '0.10.0', 'execution-mode': 'local', 'global-remote-state': false });
    const tasks = await platform(server, 'GET', '/organizations/world/tasks');
    expect(tasks.body.data.map((task: { attributes: Record<string, unknown> }) => task.attributes)).toEqual([
      expect.objectContaining({ name: 'scanner', url: 'http://127.0.0.1:9/scan', description: 'security scan', 'hmac-key': null }),
    ]);

    const self = await v1(server, 'GET', 'auth/token/lookup-self', { token: CI_TOKEN });
    expect(self.body.data).toMatchObject({
      id: CI_TOKEN,
      accessor: 'ci-accessor',
      policies: ['ci-read', 'default'],
      meta: { job: 'nightly' },
      display_name: 'token-ci',
      expire_time: null,
    });
    const entry = await v1(server, 'GET', 'cubbyhole/config/db', { token: CI_TOKEN });
    expect(entry.body.data).toEqual({ user: 'app', password: 'from-the-seed' });
    expect((await v1(server, 'GET', 'cubbyhole/config?list=true', { token: CI_TOKEN })).body.data.keys).toEqual(['db']);
    // The policy is what the seed wrote: it grants the mount list and nothing more.
    expect((await v1(server, 'GET', 'sys/mounts', { token: CI_TOKEN })).status).toBe(200);
    expect((await v1(server, 'GET', 'sys/policies/acl?list=true', { token: CI_TOKEN })).status).toBe(403);
    expect((await v1(server, 'GET', 'sys/policies/acl/ci-read')).body.data.policy).toContain('sys/mounts');
    const shortLived = await v1(server, 'GET', 'auth/token/lookup-self', { token: 'short-lived-token' });
    expect(shortLived.body.data).toMatchObject({ creation_ttl: 3600, renewable: true, policies: ['default'] });
    // The clock runs on between the seed and the lookup, and the real service truncates to seconds.
    expect(shortLived.body.data.ttl).toBeGreaterThan(3500);
  };

  it('builds the described world at start', check);

  it('gives it back after a reset, with the same fixed token values and accessor', async () => {
    await v1(server, 'POST', 'auth/token/revoke-self', { token: CI_TOKEN });
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: CI_TOKEN })).status).toBe(403);
    await platform(server, 'DELETE', '/organizations/world/workspaces/network');
    await fetch(`${server.baseUrl}/_emulator/reset`, { method: 'POST' });
    await check();
  });

  it('stores the seeded tokens by hash only', () => {
    const rows = server.app.runtime.store.sqlite.prepare('SELECT id FROM secret_tokens').all() as { id: string }[];
    expect(JSON.stringify(rows)).not.toContain(CI_TOKEN);
  });
});

describe('applying a seed again', () => {
  it('adds nothing twice: a file store started twice holds one of each', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'understudy-seed-')), 'store.sqlite');
    const config = testConfig({ UNDERSTUDY_SEED: writeSeed(SEED), UNDERSTUDY_STORE: store });
    for (let start = 0; start < 2; start++) {
      const app = await buildApp(config, { logTo: false });
      await app.fastify.close();
    }
    const app = await buildApp(config, { logTo: false });
    try {
      const count = (sql: string) => (app.runtime.store.sqlite.prepare(sql).get() as { n: number }).n;
      expect(count('SELECT count(*) AS n FROM workspaces')).toBe(2);
      expect(count('SELECT count(*) AS n FROM workspace_tags')).toBe(2);
      expect(count('SELECT count(*) AS n FROM run_tasks')).toBe(1);
      expect(count("SELECT count(*) AS n FROM secret_tokens WHERE accessor = 'ci-accessor'")).toBe(1);
      expect(count("SELECT count(*) AS n FROM secret_entries WHERE key = 'ci-accessor/config/db'")).toBe(1);
    } finally {
      await app.fastify.close();
    }
  });
});

describe('seed mounts and the mounts a store already holds', () => {
  const withMounts = (mounts: { path: string; type: string; options?: Record<string, string> }[], defaultMounts = true) => ({
    ...SEED,
    secrets: { ...SEED.secrets, mounts, ...(defaultMounts ? {} : { 'default-mounts': false }) },
  });
  const mountsOf = async (app: Awaited<ReturnType<typeof buildApp>>) => {
    const response = await app.fastify.inject({ method: 'GET', url: '/v1/sys/mounts', headers: { 'x-vault-token': ROOT_TOKEN } });
    return response.json<Record<string, { type: string; options: Record<string, string> | null }>>();
  };

  it('keeps a mount the store holds where a newer seed puts another, starts, and logs a warning', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'understudy-seed-')), 'store.sqlite');
    // A store from before the seed had `secret/`.
    const older = writeSeed(withMounts([], false));
    const before = await buildApp(testConfig({ UNDERSTUDY_SEED: older, UNDERSTUDY_STORE: store }), { logTo: false });
    const mounted = await before.fastify.inject({
      method: 'POST',
      url: '/v1/sys/mounts/secret',
      headers: { 'x-vault-token': ROOT_TOKEN },
      payload: { type: 'pki' },
    });
    expect(mounted.statusCode).toBe(204);
    await before.fastify.close();

    const lines: string[] = [];
    const newer = writeSeed(withMounts([{ path: 'secret/', type: 'kv', options: { version: '2' } }]));
    const after = await buildApp(testConfig({ UNDERSTUDY_SEED: newer, UNDERSTUDY_STORE: store, UNDERSTUDY_LOG_LEVEL: 'warn' }), {
      logTo: { write: (line: string) => lines.push(line) },
    });
    try {
      expect((await mountsOf(after))['secret/']?.type).toBe('pki');
      const warning = lines
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .find((entry) => entry.msg.includes('secret/'));
      expect(warning).toMatchObject({ level: 40, msg: "the seed's kv mount at secret/ was skipped: the store has pki at secret/" });
    } finally {
      await after.fastify.close();
    }
  });

  it('reads kv-v2 in a seed as the key/value engine, version 2, start after start', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'understudy-seed-')), 'store.sqlite');
    const config = testConfig({ UNDERSTUDY_SEED: writeSeed(withMounts([{ path: 'kv2/', type: 'kv-v2' }])), UNDERSTUDY_STORE: store });
    for (let start = 0; start < 2; start++) {
      const app = await buildApp(config, { logTo: false });
      try {
        expect((await mountsOf(app))['kv2/']).toMatchObject({ type: 'kv', options: { version: '2' } });
      } finally {
        await app.fastify.close();
      }
    }
  });

  const started = async (seed: object) => {
    const app = await buildApp(testConfig({ UNDERSTUDY_SEED: writeSeed(seed) }), { logTo: false });
    try {
      const mounts = await mountsOf(app);
      // The mounts sit at the top level beside the envelope's own fields (request_id, data, ...).
      const listed = Object.entries(mounts).filter(([path]) => path.endsWith('/'));
      return Object.fromEntries(listed.map(([path, mount]) => [path, mount.type]));
    } finally {
      await app.fastify.close();
    }
  };

  it('keeps the default secret/, pki/ and database/ beside the mounts a seed declares', async () => {
    expect(await started(withMounts([{ path: 'team/', type: 'kv-v2' }]))).toEqual({
      'cubbyhole/': 'cubbyhole',
      'identity/': 'identity',
      'sys/': 'system',
      'secret/': 'kv',
      'pki/': 'pki',
      'database/': 'database',
      'team/': 'kv',
    });
  });

  it("lets a seed mount at, above or below a default's path take its place", async () => {
    const app = await buildApp(
      testConfig({
        UNDERSTUDY_SEED: writeSeed(
          withMounts([
            { path: 'secret/', type: 'kv', options: { version: '1' } },
            { path: 'pki/int/', type: 'pki' },
          ]),
        ),
      }),
      { logTo: false },
    );
    try {
      const mounts = await mountsOf(app);
      expect(mounts['secret/']).toMatchObject({ type: 'kv', options: { version: '1' } });
      expect(mounts['pki/int/']?.type).toBe('pki');
      expect(mounts['pki/']).toBeUndefined();
      expect(mounts['database/']?.type).toBe('database');
    } finally {
      await app.fastify.close();
    }
  });

  it('leaves the defaults out when the seed says "default-mounts": false', async () => {
    expect(await started(withMounts([{ path: 'team/', type: 'kv-v2' }], false))).toEqual({
      'cubbyhole/': 'cubbyhole',
      'identity/': 'identity',
      'sys/': 'system',
      'team/': 'kv',
    });
  });

  it('refuses "default-mounts" at the top level, where it would be ignored', async () => {
    const built = buildApp(testConfig({ UNDERSTUDY_SEED: writeSeed({ ...SEED, 'default-mounts': false }) }), { logTo: false });
    await expect(built).rejects.toThrow('"default-mounts" belongs inside "secrets"');
  });

  it('still refuses a seed whose own mounts nest', async () => {
    const nested = withMounts([
      { path: 'a/', type: 'cubbyhole' },
      { path: 'a/b/', type: 'pki' },
    ]);
    await expect(buildApp(testConfig({ UNDERSTUDY_SEED: writeSeed(nested) }), { logTo: false })).rejects.toThrow(
      'path is already in use at a/',
    );
  });
});

describe('a seed that cannot be applied stops the start naming the entry', () => {
  it.each([
    [
      { organizations: [{ ...SEED.organizations[0], workspaces: [{ name: 'w', 'tool-version': '9.9.9' }] }] },
      /workspace w: tool-version is not a known release/,
    ],
    [{ secrets: { policies: [{ name: 'broken', policy: 'path "x" {' }] } }, /seed secrets policy broken: /],
    [{ secrets: { tokens: [{ id: 't', ttl: 'soon' }] } }, /seed secrets token .*: ttl /],
    [{ organizations: [{ ...SEED.organizations[0], workspaces: [{ name: 'has space' }] }] }, /\/organizations\/0\/workspaces\/0\/name/],
  ])('%#', async (override, message) => {
    const config = testConfig({ UNDERSTUDY_SEED: writeSeed({ ...SEED, ...override }) });
    const built = buildApp(config, { logTo: false });
    await expect(built).rejects.toThrow(SeedError);
    await expect(built).rejects.toThrow(message);
  });
});
