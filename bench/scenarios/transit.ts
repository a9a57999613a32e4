import { addGoals, DOC_BASELINE, perItemCost, throughput } from '../goals.js';
import type { BenchTarget, Scenario } from '../scenario.js';

/**
 * The transit engine's hot path: encrypting 1 KB with an AES-256-GCM key, alone and as a batch
 * of 100 such items in one request.
 *
 * The batch's goal is per item: one item of the batch costs at most a tenth of a single encrypt
 * request. A batch pays the request's own work (HTTP, token, key lookup, routing, the envelope)
 * once; what each item adds is its own: reading its base64 text out of the body, decoding it,
 * the AES-GCM encryption, encoding the ciphertext and writing its result into the answer, a few
 * tens of microseconds, where a whole request costs several hundred. (The earlier goal, the
 * batch within 5 single requests, asked each item to cost a twentieth of a request, less than a
 * profile of the batch finds the item's own work to cost.)
 */

const SINGLE = 'POST /v1/transit/encrypt/:name 1 KB';
const BATCH = 'POST /v1/transit/encrypt/:name batch of 100 x 1 KB';
const BATCH_ITEMS = 100;
const MOUNT = 'bench-transit';
const PLAINTEXT = Buffer.alloc(1024, 'x').toString('base64');

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
      const batch_input = Array.from({ length: BATCH_ITEMS }, () => ({ plaintext: PLAINTEXT }));
      return { method: 'POST', path: `/v1/${MOUNT}/encrypt/bench`, headers: headers(target), body: JSON.stringify({ batch_input }) };
    },
  },
];

addGoals(
  throughput(`${SINGLE} vs document baseline`, SINGLE, DOC_BASELINE, 0.8),
  perItemCost(`${BATCH}: one item vs a single encrypt`, BATCH, BATCH_ITEMS, SINGLE, 0.1),
);
