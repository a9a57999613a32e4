import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startServer, type TestServer } from '../helpers/app.js';

/**
 * A mixed write load over every path that writes workspaces (the API's create, rename and
 * deletes, the site-admin delete, bulk rows, the seed through a reset, snapshot restores, an
 * organization's cascade) and teams, interleaved, must leave the store whole: SQLite's own
 * integrity check and each full-text index's check pass. Restores used to copy the full-text
 * shadow tables under FTS5's cached structure, which the next write then corrupted.
 */

const directory = mkdtempSync(join(tmpdir(), 'understudy-fts-integrity-'));
const seedFile = join(directory, 'seed.json');
writeFileSync(
  seedFile,
  JSON.stringify({
    users: [{ username: 'admin', email: 'admin@understudy.test', 'site-admin': true }],
    organizations: [
      {
        name: 'understudy',
        email: 'admin@understudy.test',
        owners: ['admin'],
        teams: [{ name: 'seeded-team' }],
        workspaces: [{ name: 'seeded-one' }, { name: 'seeded-two' }, { name: 'w3' }],
      },
    ],
  }),
);

const json = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/vnd.api+json' };
const resource = (type: string, attributes: Record<string, unknown>) => ({ data: { type, attributes } });

/** A fixed pseudo-random sequence, so a failure replays the same way. */
function sequence(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state % below;
  };
}

describe('full-text indexes under a mixed write load', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({
      UNDERSTUDY_STORE: join(directory, 'store.db'),
      UNDERSTUDY_SNAPSHOT_DIR: join(directory, 'snapshots'),
      UNDERSTUDY_SEED: seedFile,
    });
  });
  afterAll(() => server.close());

  it('every workspace write path, interleaved with snapshots and restores, ends with integrity_check ok', async () => {
    const fastify = server.app.fastify;
    const next = sequence(31);
    const names = Array.from({ length: 24 }, (_, index) => `w${index}`);
    const pick = () => names[next(names.length)] as string;
    const ids = new Map<string, string>();
    let scratch = 0;

    const inject = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
      const response = await fastify.inject({ method, url, headers: url.startsWith('/api') ? json : {}, payload: payload as object });
      expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(500);
      return response;
    };
    const create = async (organization: string, name: string) => {
      const response = await inject('POST', `/api/v2/organizations/${organization}/workspaces`, resource('workspaces', { name }));
      if (response.statusCode === 201) ids.set(name, response.json<{ data: { id: string } }>().data.id);
    };
    const someId = () => [...ids.values()][next(Math.max(ids.size, 1))] ?? 'ws-none';

    const operations: (() => Promise<unknown>)[] = [
      () => create('understudy', pick()),
      () => create('understudy', pick()),
      () => inject('PATCH', `/api/v2/organizations/understudy/workspaces/${pick()}`, resource('workspaces', { name: pick() })),
      () => inject('DELETE', `/api/v2/organizations/understudy/workspaces/${pick()}`),
      () => inject('POST', `/api/v2/workspaces/${someId()}/actions/safe-delete`),
      () => inject('DELETE', `/api/v2/admin/workspaces/${someId()}`),
      () => inject('POST', '/_emulator/organizations/understudy/workspaces/bulk', { count: 15, prefix: `bulk${next(4)}` }),
      () => inject('POST', '/api/v2/organizations/understudy/teams', resource('teams', { name: `team-${pick()}` })),
      async () => {
        // An organization with workspaces and a team, deleted: the cascade removes them.
        const organization = `scratch-${(scratch += 1)}`;
        await inject('POST', '/api/v2/organizations', resource('organizations', { name: organization, email: 'a@b.test' }));
        await create(organization, pick());
        await create(organization, pick());
        await inject('DELETE', `/api/v2/organizations/${organization}`);
      },
      () => inject('POST', '/_emulator/snapshots', { name: `load-${next(3)}`, replace: true }),
      () => inject('POST', `/_emulator/snapshots/load-${next(3)}/restore`),
      () => inject('POST', `/_emulator/snapshots/load-${next(3)}/restore`),
      () => inject('POST', '/_emulator/reset'),
    ];

    const { sqlite } = server.app.runtime.store;
    const indexesHold = () => {
      for (const index of ['workspace_names', 'team_names', 'user_names'])
        expect(() => sqlite.exec(`INSERT INTO ${index} (${index}) VALUES ('integrity-check')`), index).not.toThrow();
    };
    for (let round = 0; round < 14; round += 1) {
      // Several at once: a snapshot's online backup yields between steps, so writes land during it.
      await Promise.all(Array.from({ length: 8 }, () => (operations[next(operations.length)] as () => Promise<unknown>)()));
      // After every round: a later restore can copy a sound index back over a broken one.
      indexesHold();
    }
    // The indexes still answer searches for names written after the last restore.
    await create('understudy', 'after-the-load');
    const found = await inject('GET', '/api/v2/organizations/understudy/workspaces?search%5Bname%5D=the-lo');
    expect(found.json<{ data: { attributes: { name: string } }[] }>().data.map((item) => item.attributes.name)).toEqual(['after-the-load']);

    indexesHold();
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
  }, 120_000);
});
