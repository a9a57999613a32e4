import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';

/**
 * A small fuzz over the secrets core: every known path (and some unknown ones) with every method
 * and a set of malformed bodies and queries. Nothing may answer 5xx, except the one case where the
 * real service does: an empty cubbyhole write, a Go error there (see the cubbyhole engine).
 */

const PATHS = [
  'sys/health',
  'sys/seal-status',
  'sys/mounts',
  'sys/mounts/fuzz',
  'sys/mounts/fuzz/tune',
  'sys/mounts/cubbyhole/tune',
  'sys/remount',
  'sys/policy',
  'sys/policy/fuzz',
  'sys/policies/acl',
  'sys/policies/acl/fuzz',
  'sys/leases/lookup',
  'sys/leases/lookup/cubbyhole',
  'sys/leases/renew',
  'sys/leases/renew/x/y',
  'sys/renew',
  'sys/leases/revoke',
  'sys/revoke/x',
  'sys/leases/revoke-prefix/x',
  'sys/revoke-prefix/',
  'auth/token/create',
  'auth/token/create-orphan',
  'auth/token/lookup',
  'auth/token/lookup-self',
  'auth/token/lookup-accessor',
  'auth/token/renew',
  'auth/token/renew-self',
  'auth/token/revoke',
  'auth/token/revoke-accessor',
  'auth/token/revoke-orphan',
  'auth/token/accessors',
  'cubbyhole',
  'cubbyhole/fuzz',
  'cubbyhole/fuzz/a',
  'pki/ca',
  'database/creds/x',
  'nomount/x',
  'sys/nothing',
  'auth/token/nothing',
  'auth/other/x',
  '',
];

const BODIES = [
  undefined,
  '',
  '{}',
  'null',
  '[]',
  '{"a":null}',
  '{"lease_id":null,"increment":null,"sync":null}',
  '{"policy":null,"rules":5}',
  '{"type":{"x":1},"config":[1],"options":"x"}',
  '{"token":123,"accessor":[]}',
  '{"ttl":"abc","policies":5,"meta":"x","num_uses":"x"}',
  '{"config":{"max_lease_ttl":[1],"default_lease_ttl":{"a":1}},"default_lease_ttl":true,"allowed_managed_keys":{}}',
  '{"from":1,"to":2}',
  '{"lease_id":"cubbyhole/x","increment":-5}',
  '{"lease_id":"auth/token/create/x","sync":"maybe"}',
  '{"type":"cubbyhole","description":null,"config":null,"local":null,"seal_wrap":null}',
  '{"increment":"99999999999999999999h"}',
  '{"ttl":1e308,"explicit_max_ttl":1e308,"period":1e308,"num_uses":1e308}',
];

const QUERIES = ['', '?list=true', '?list=x&help=1', '?a=1&a=2'];

/** Methods whose requests carry a body here (Node frames bodies of other methods only when asked). */
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'LIST', 'PATCH', 'HEAD', 'OPTIONS'];

describe('no input gives a server error', () => {
  let server: TestServer;
  const agent = new Agent({ keepAlive: true });
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    agent.destroy();
    await server.close();
  });

  function send(method: string, path: string, body: string | undefined): Promise<{ status: number; text: string }> {
    const url = new URL(server.baseUrl);
    const headers: Record<string, string> = { 'x-vault-token': ROOT_TOKEN };
    if (body !== undefined) headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    return new Promise((resolve, reject) => {
      const request = httpRequest({ method, host: url.hostname, port: url.port, path, agent, headers }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      });
      request.on('error', reject);
      request.end(body);
    });
  }

  it('answers every method, path, body and query below 500', async () => {
    const failures: string[] = [];
    for (const path of PATHS) {
      for (const method of METHODS) {
        for (const body of WITH_BODY.has(method) ? BODIES : [undefined]) {
          for (const query of method === 'GET' ? QUERIES : ['']) {
            const reply = await send(method, `/v1/${path}${query}`, body);
            const documented = path.startsWith('cubbyhole') && reply.text.includes('missing data fields');
            if (reply.status >= 500 && !documented)
              failures.push(`${method} ${path}${query} ${body} -> ${reply.status} ${reply.text.slice(0, 200)}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);
});
