import { createHash, randomBytes } from 'node:crypto';
import { call as platformCall, jsonApiHeaders } from '../platform-setup.js';
import type { BenchTarget, Scenario } from '../scenario.js';

const ORG = 'understudy';
const call = (target: BenchTarget, method: string, path: string, body?: unknown) =>
  platformCall<{ data: { id: string; attributes: Record<string, unknown> } }>(target, method, path, body);

/** A 1 MB state file: 500 resource instances with a 2 KB attribute each, and two outputs. */
function megabyteState(serial: number): Buffer {
  const instances = Array.from({ length: 500 }, (_, index) => ({
    index_key: index,
    schema_version: 0,
    attributes: { id: `id-${index}`, blob: randomBytes(1000).toString('hex') },
  }));
  const state = {
    version: 4,
    terraform_version: '1.11.4',
    serial,
    lineage: 'bench-lineage',
    outputs: { greeting: { value: 'hello', type: 'string' }, secret: { value: 'hush', type: 'string', sensitive: true } },
    resources: [
      { mode: 'managed', type: 'terraform_data', name: 'item', provider: 'provider["terraform.io/builtin/terraform"]', instances },
    ],
  };
  return Buffer.from(JSON.stringify(state));
}

const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');

/** A workspace locked by the admin token, as `terraform apply` holds it while it writes state. */
async function lockedWorkspace(target: BenchTarget, name: string): Promise<string> {
  const workspace = await call(target, 'POST', `/api/v2/organizations/${ORG}/workspaces`, {
    data: { type: 'workspaces', attributes: { name } },
  });
  await call(target, 'POST', `/api/v2/workspaces/${workspace.data.id}/actions/lock`);
  return workspace.data.id;
}

/**
 * State as `terraform apply` writes and reads it. The upload row is the CLI's write: create the
 * version (pending), then PUT the 1 MB state to its one-time link (md5, parse, outputs, store);
 * req/s counts both requests, and a fixed number of pairs keeps the in-memory store bounded. The
 * download row is the CLI's read of the current state through its signed link.
 */
export const scenarios: Scenario[] = [
  {
    name: 'POST state-versions + PUT 1 MB state to its upload link (pairs)',
    setup: async (target) => {
      const id = await lockedWorkspace(target, 'bench-upload');
      const state = megabyteState(1);
      return {
        method: 'POST',
        path: `/api/v2/workspaces/${id}/state-versions`,
        headers: jsonApiHeaders(target),
        body: JSON.stringify({ data: { type: 'state-versions', attributes: { serial: 1, lineage: 'bench-lineage', md5: md5(state) } } }),
        followUp: {
          method: 'PUT',
          headers: { 'content-type': 'application/octet-stream' },
          body: state,
          pathFrom: (body) =>
            new URL(
              (JSON.parse(body) as { data: { attributes: { 'hosted-state-upload-url': string } } }).data.attributes[
                'hosted-state-upload-url'
              ],
            ).pathname,
        },
        amount: 150,
      };
    },
  },
  {
    name: 'GET hosted-state-download-url (1 MB state)',
    setup: async (target) => {
      const id = await lockedWorkspace(target, 'bench-download');
      const state = megabyteState(1);
      await call(target, 'POST', `/api/v2/workspaces/${id}/state-versions`, {
        data: {
          type: 'state-versions',
          attributes: { serial: 1, lineage: 'bench-lineage', md5: md5(state), state: state.toString('base64') },
        },
      });
      const current = await call(target, 'GET', `/api/v2/workspaces/${id}/current-state-version`);
      return { path: new URL(current.data.attributes['hosted-state-download-url'] as string).pathname };
    },
  },
];
