import { addGoals, millisecondsPer } from '../goals.js';
import { startUnderstudy } from '../processes.js';
import type { BenchTarget, OwnServer, Scenario } from '../scenario.js';

/**
 * Issue 31 item 5 as a figure: `/_emulator/health` on an understudy that signs 10,000-item RSA
 * batches (the largest transit accepts) one after another the whole time. The test
 * (test/ops/bounded-work.test.ts) checks that health is answered at all while a batch runs; how
 * fast is measured here. The goal is an answer within 100 ms: with the bench's two connections
 * waiting on the same turns of the event loop, that is 50 ms per answer (1000 / req/s).
 */

const HEALTH_DURING_BATCHES = 'GET /_emulator/health (10,000-item RSA signing batches running)';
const BATCH = 10_000;
const MOUNT = 'bench-bounded';

async function v1(target: BenchTarget, method: string, path: string, body: string): Promise<string> {
  const response = await fetch(`${target.baseUrl}/v1/${path}`, {
    method,
    headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 200)}`);
  return text;
}

/** A fresh understudy with an RSA-2048 transit key, signing batch after batch until stopped. */
async function busyServer(): Promise<OwnServer> {
  const server = await startUnderstudy();
  const { target } = server;
  let stopped = false;
  let loop: Promise<void> = Promise.resolve();
  try {
    await v1(target, 'POST', `sys/mounts/${MOUNT}`, JSON.stringify({ type: 'transit' }));
    await v1(target, 'POST', `${MOUNT}/keys/rsa`, JSON.stringify({ type: 'rsa-2048' }));
    const batch = JSON.stringify({
      batch_input: Array.from({ length: BATCH }, (_, index) => ({ input: Buffer.from(`item ${index}`).toString('base64') })),
    });
    // One batch in flight at any time: the next starts when the last is answered.
    loop = (async () => {
      while (!stopped) await v1(target, 'POST', `${MOUNT}/sign/rsa`, batch);
    })();
    // A failed batch ends the loop; the row then measures an idle server, so say so.
    loop.catch((error: unknown) => {
      if (!stopped) console.error(`bench: the signing batches stopped: ${(error as Error).message}`);
    });
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    target,
    stop: async () => {
      stopped = true;
      // The batch in flight ends with the server; its failure is expected then.
      await server.stop();
      await loop.catch(() => undefined);
    },
  };
}

export const scenarios: Scenario[] = [
  {
    name: HEALTH_DURING_BATCHES,
    ownServer: busyServer,
    setup: async () => ({ path: '/_emulator/health' }),
  },
];

addGoals(millisecondsPer('health answer while RSA signing batches run', HEALTH_DURING_BATCHES, 50));
