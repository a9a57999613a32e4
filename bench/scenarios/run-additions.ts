import { createServer, type Server } from 'node:http';
import { addGoals, cost } from '../goals.js';
import { call } from '../platform-setup.js';
import { globalPolicySet, plainRun, runDriver, runRequest } from '../run-driver.js';
import type { Scenario } from '../scenario.js';

/**
 * What a notification delivery and policy checks add to a whole simulated run (plan and
 * auto-apply). Each row brings its own baseline, the plain run: the same driver
 * (bench/run-driver.ts) on a fresh understudy of its own, the only difference being what each
 * workspace has, measured in the same alternating rounds (plain, row, plain, row…), so the ratio
 * is per round and holds on a busy machine better than two rows measured minutes apart.
 */

const WITH_NOTIFICATION = 'simulated run, plan + apply, one generic notification delivery (run:completed)';
const WITH_POLICIES = 'simulated run, plan + apply, a sentinel policy check and an OPA policy evaluation';
const PLAIN_BESIDE_NOTIFICATION = 'simulated run, plan + apply, nothing added (beside the notification row)';
const PLAIN_BESIDE_POLICIES = 'simulated run, plan + apply, nothing added (beside the policy row)';

/**
 * A receiver in the bench process answering every delivery (and the verification) with 200 at
 * once, without waiting for the body it discards: what is measured is the platform's side of a
 * delivery, not how fast the bench process gets to read it.
 */
function receiver(): { url: () => string; start: () => Promise<void>; stop: () => Promise<void> } {
  let server: Server | undefined;
  return {
    url: () => `http://127.0.0.1:${(server?.address() as { port: number }).port}/hook`,
    start: async () => {
      server = createServer((request, response) => {
        request.resume();
        response.writeHead(200, { 'content-length': '2' }).end('ok');
      });
      await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    },
    stop: async () => {
      const listening = server;
      if (listening) await new Promise<void>((resolve) => listening.close(() => resolve()));
    },
  };
}

function notifiedDriver() {
  const hook = receiver();
  return runDriver({
    prefix: 'bench-notified-',
    setup: async () => {
      await hook.start();
      return {};
    },
    prepare: async (target, workspace) => {
      await call(target, 'POST', `/api/v2/workspaces/${workspace}/notification-configurations`, {
        data: {
          type: 'notification-configurations',
          attributes: { name: 'bench', 'destination-type': 'generic', url: hook.url(), enabled: true, triggers: ['run:completed'] },
        },
      });
    },
    teardown: () => hook.stop(),
  });
}

export const scenarios: Scenario[] = [
  {
    name: WITH_NOTIFICATION,
    baseline: plainRun(PLAIN_BESIDE_NOTIFICATION, 'bench-plain-'),
    ownServer: notifiedDriver,
    setup: runRequest,
  },
  {
    name: WITH_POLICIES,
    baseline: plainRun(PLAIN_BESIDE_POLICIES, 'bench-plain-'),
    ownServer: () =>
      runDriver({
        prefix: 'bench-policed-',
        setup: async (target) => {
          await globalPolicySet(target, 'sentinel');
          await globalPolicySet(target, 'opa');
          return {};
        },
      }),
    setup: runRequest,
  },
];

addGoals(
  cost(
    'a run with one notification delivery vs the same run without (simulated)',
    WITH_NOTIFICATION,
    `baseline: ${PLAIN_BESIDE_NOTIFICATION}`,
    1.1,
  ),
  cost(
    'a run with policy checks (sentinel check + OPA evaluation) vs the same run without (simulated)',
    WITH_POLICIES,
    `baseline: ${PLAIN_BESIDE_POLICIES}`,
    1.2,
  ),
);
