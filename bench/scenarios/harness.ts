import { addGoals, cost, millisecondsPer } from '../goals.js';
import { call, headers } from '../platform-setup.js';
import autocannon from 'autocannon';
import { startUnderstudy } from '../processes.js';
import type { BenchTarget, OwnServer, Scenario } from '../scenario.js';

/**
 * The test harness: what the request journal costs a point read, and how long a reset and a
 * snapshot restore of a world with 10,000 workspaces and 10,000 secrets take.
 *
 * The journal's cost is measured like with like: two fresh understudies from the same seed, one
 * with the default journal size and one with `UNDERSTUDY_JOURNAL_SIZE=0`, each sent the same
 * 10,000 reads first, so the journaled one is measured with its ring full (its steady state)
 * rather than the shared understudy, whose heap holds what every earlier row made.
 */

const JOURNALED = 'GET /api/v2/organizations/:org (journal on, default size)';
const RESET = 'POST /_emulator/reset (seed world)';
const RESTORE = 'PUT /v1/cubbyhole/:path + POST /_emulator/snapshots/:name/restore (10,000 workspaces + 10,000 secrets)';
const WHOLE_COPIES = 'POST /_emulator/snapshots/:name/restore of two snapshots in turn (10,000 workspaces + 10,000 secrets, whole copies)';
const WORLD_SIZE = 10_000;
const WORLD = 'bench-world';

const pointRead = (target: BenchTarget) => ({ path: '/api/v2/organizations/understudy', headers: headers(target) });

/** The journal's default size (`UNDERSTUDY_JOURNAL_SIZE`): the reads sent before measuring fill the ring. */
const JOURNAL_DEFAULT_SIZE = 10_000;

/** A fresh understudy (journal size from `environment`) that has served the default journal size's worth of point reads. */
async function freshServerAfterReads(environment: Record<string, string>): Promise<OwnServer> {
  const server = await startUnderstudy(environment);
  try {
    const read = pointRead(server.target);
    const result = await autocannon({
      url: server.target.baseUrl + read.path,
      headers: read.headers,
      connections: 2,
      amount: JOURNAL_DEFAULT_SIZE,
    });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`the reads that fill the journal failed (${result.non2xx} non-2xx, ${result.errors} errors)`);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { target: server.target, ...(server.pid === undefined ? {} : { pid: server.pid }), stop: () => server.stop() };
}

/** Writes `count` key/value secrets, a few requests at a time. */
async function writeSecrets(target: BenchTarget, count: number): Promise<void> {
  const body = JSON.stringify({ data: { username: 'bench', password: 'not-a-real-secret' } });
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const response = await fetch(`${target.baseUrl}/v1/secret/data/world/${index}`, {
        method: 'POST',
        headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`secret write answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

export const scenarios: Scenario[] = [
  {
    name: JOURNALED,
    baseline: {
      name: 'the same read, journal off',
      start: async () => {
        const off = await freshServerAfterReads({ UNDERSTUDY_JOURNAL_SIZE: '0' });
        return {
          baseUrl: off.target.baseUrl,
          request: pointRead(off.target),
          ...(off.pid === undefined ? {} : { pid: off.pid }),
          stop: () => off.stop(),
        };
      },
    },
    ownServer: () => freshServerAfterReads({}),
    setup: async (target) => pointRead(target),
  },
  {
    name: RESET,
    setup: async () => ({ method: 'POST', path: '/_emulator/reset' }),
  },
  {
    name: RESTORE,
    setup: async (target) => {
      await makeWorld(target);
      // A write before every restore, as a test that wrote leaves the store: a restore into a store
      // no row of which changed since the same snapshot was last restored copies nothing, which is
      // not what this row is for. One connection, so each restore follows its own write.
      return {
        method: 'PUT',
        path: '/v1/cubbyhole/bench-dirty',
        headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
        body: JSON.stringify({ value: 'written since the snapshot' }),
        connections: 1,
        followUp: { method: 'POST', body: Buffer.alloc(0), pathFrom: () => `/_emulator/snapshots/${WORLD}/restore` },
      };
    },
  },
  {
    // Restoring another snapshot than the last restore brought is a whole copy of every table (a
    // test suite's first restore, or one that switches worlds): two snapshots of the same world,
    // restored in turn, a pair per iteration.
    name: WHOLE_COPIES,
    setup: async (target) => {
      const snapshots = await call<{ snapshots: { name: string }[] }>(target, 'GET', '/_emulator/snapshots', undefined, false);
      if (snapshots.snapshots.some((snapshot) => snapshot.name === WORLD)) {
        await call(target, 'POST', `/_emulator/snapshots/${WORLD}/restore`, undefined, false);
      } else await makeWorld(target);
      await call(target, 'POST', '/_emulator/snapshots', { name: `${WORLD}-again`, replace: true }, false);
      return {
        method: 'POST',
        path: `/_emulator/snapshots/${WORLD}/restore`,
        connections: 1,
        followUp: { method: 'POST', body: Buffer.alloc(0), pathFrom: () => `/_emulator/snapshots/${WORLD}-again/restore` },
      };
    },
  },
];

/** 10,000 workspaces and 10,000 secrets, kept as the snapshot `bench-world`. */
async function makeWorld(target: BenchTarget): Promise<void> {
  await call(target, 'POST', '/_emulator/organizations/understudy/workspaces/bulk', { count: WORLD_SIZE, prefix: 'world' }, false);
  await writeSecrets(target, WORLD_SIZE);
  await call(target, 'POST', '/_emulator/snapshots', { name: WORLD, replace: true }, false);
}

addGoals(
  cost('journal cost: point read, journal on vs off', JOURNALED, 'baseline: the same read, journal off', 1.1),
  millisecondsPer('reset of the seed world', RESET, 20),
  // The pair's time: the write before the restore is well under a millisecond of it.
  millisecondsPer('restore of 10,000 workspaces + 10,000 secrets after a write (the pair)', RESTORE, 50, 2),
  millisecondsPer('restore of 10,000 workspaces + 10,000 secrets, a whole copy', WHOLE_COPIES, 50),
);
