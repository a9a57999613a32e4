import { addGoals, cost, DOC_BASELINE, throughput } from '../goals.js';
import { BASELINE_TOKEN } from '../baseline-token.js';
import { startBaseline } from '../processes.js';
import type { BaselineServer, BenchTarget, Scenario } from '../scenario.js';

/**
 * The transit engine's hot path: encrypting 1 KB with an AES-256-GCM key, alone and as a batch
 * of 100 such items in one request.
 *
 * The batch is measured against its own yardstick: the same batch behind a bare Fastify server
 * (bench/baseline.ts, `POST /transit/encrypt`) that does only what answering it needs, the bearer
 * lookup and per item base64, AES-GCM and the `vault:v1:` text. Both carry 100 items, so the ratio
 * is also what one item costs against the least an item can cost on this Node. The goal is the
 * point reads' margin, 1.25 times.
 *
 * The earlier goal divided an item by a single encrypt request (at most a tenth of one). It could
 * not be met once the request got cheap: Node 20's `createCipheriv` to its tag alone costs about a
 * tenth of a single encrypt now, whatever the server around it does.
 */

const SINGLE = 'POST /v1/transit/encrypt/:name 1 KB';
const BATCH = 'POST /v1/transit/encrypt/:name batch of 100 x 1 KB';
const BATCH_ITEMS = 100;
const MOUNT = 'bench-transit';
const PLAINTEXT = Buffer.alloc(1024, 'x').toString('base64');

const BATCH_BODY = JSON.stringify({ batch_input: Array.from({ length: BATCH_ITEMS }, () => ({ plaintext: PLAINTEXT })) });
const BARE_BATCH = `the same batch of ${BATCH_ITEMS} x 1 KB behind a bare Fastify server (AES-256-GCM only)`;

/** The yardstick process, started for this row: the batch's own work and nothing else. */
async function bareBatchServer(): Promise<BaselineServer> {
  const server = await startBaseline();
  return {
    baseUrl: server.baseUrl,
    request: {
      method: 'POST',
      path: '/transit/encrypt',
      headers: { authorization: `Bearer ${BASELINE_TOKEN}`, 'content-type': 'application/json' },
      body: BATCH_BODY,
    },
    ...(server.pid === undefined ? {} : { pid: server.pid }),
    stop: () => server.stop(),
  };
}

const headers = (target: BenchTarget) => ({ 'x-vault-token': target.rootToken, 'content-type': 'application/json' });

async function call(target: BenchTarget, path: string, body: unknown, allowed: number[] = []): Promise<void> {
  const response = await fetch(`${target.baseUrl}/v1/${path}`, { method: 'POST', headers: headers(target), body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300 && !allowed.includes(response.status)) throw new Error(`POST ${path} answered ${response.status}: ${text}`);
}

/** The mount and key, made once per store (a second scenario on the same store finds them). */
async function prepare(target: BenchTarget): Promise<void> {
  await call(target, `sys/mounts/${MOUNT}`, { type: 'transit' }, [400]);
  await call(target, `${MOUNT}/keys/bench`, {});
}

export const scenarios: Scenario[] = [
  {
    name: SINGLE,
    fresh: true,
    setup: async (target) => {
      await prepare(target);
      return {
        method: 'POST',
        path: `/v1/${MOUNT}/encrypt/bench`,
        headers: headers(target),
        body: JSON.stringify({ plaintext: PLAINTEXT }),
      };
    },
  },
  {
    name: BATCH,
    // On a server of its own, as the single it is divided by: on the shared server the earlier
    // rows' worlds weigh on its collector (a 140 KB body and answer per request).
    fresh: true,
    setup: async (target) => {
      await prepare(target);
      return { method: 'POST', path: `/v1/${MOUNT}/encrypt/bench`, headers: headers(target), body: BATCH_BODY };
    },
    baseline: { name: BARE_BATCH, start: bareBatchServer },
  },
];

addGoals(
  throughput(`${SINGLE} vs document baseline`, SINGLE, DOC_BASELINE, 0.8),
  cost(`${BATCH} vs ${BARE_BATCH}`, BATCH, `baseline: ${BARE_BATCH}`, 1.25),
);
