import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';

/** A small fuzz over the auth-method paths: every method, malformed bodies; nothing may answer 5xx. */

const PATHS = [
  'sys/auth',
  'sys/auth/fz',
  'sys/auth/fz/tune',
  'sys/auth/token',
  'sys/auth/token/tune',
  'sys/auth/up/tune',
  'sys/auth/ar',
  'sys/capabilities-self',
  'sys/capabilities',
  'sys/capabilities-accessor',
  'sys/leader',
  'auth/up/users',
  'auth/up/users/u',
  'auth/up/users/u/password',
  'auth/up/users/u/policies',
  'auth/up/users/bad%20name',
  'auth/up/login/u',
  'auth/up/login/nobody',
  'auth/ar/role',
  'auth/ar/role/r',
  'auth/ar/role/r/role-id',
  'auth/ar/role/r/secret-id',
  'auth/ar/role/r/custom-secret-id',
  'auth/ar/role/r/secret-id/lookup',
  'auth/ar/role/r/secret-id/destroy',
  'auth/ar/role/r/secret-id-accessor/lookup',
  'auth/ar/role/r/secret-id-accessor/destroy',
  'auth/ar/role/ghost/secret-id',
  'auth/ar/login',
  'auth/ar/nothing',
];

const BODIES: unknown[] = [
  undefined,
  {},
  { password: 5, token_policies: { a: 1 }, token_ttl: [], token_bound_cidrs: 'x/y' },
  { password: 'p', token_ttl: 1e308, token_num_uses: -1, token_type: 'batch', policies: 'a', token_policies: 'b' },
  { type: 'userpass', config: { listing_visibility: 5, default_lease_ttl: { a: 1 } } },
  { type: { x: 1 }, config: [1], description: null },
  { max_lease_ttl: 'soon', listing_visibility: [], token_type: 7 },
  { metadata: [1], cidr_list: 'bad', num_uses: '1e308', ttl: 'never', secret_id: {} },
  { metadata: '{"a":1}', secret_id_accessor: 5, role_id: null },
  { role_id: 'x', secret_id: 'y', bind_secret_id: 'perhaps', secret_id_bound_cidrs: ['::1/200'] },
  { paths: { a: 1 }, path: 5, token: [], accessor: {} },
];

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'LIST_QUERY'];

describe('auth-method paths never answer 5xx', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  /** Deletes and disables run too, so what the paths need is put back before each path. */
  const prepare = async () => {
    await v1(server, 'POST', 'sys/auth/up', { body: { type: 'userpass' } });
    await v1(server, 'POST', 'sys/auth/ar', { body: { type: 'approle' } });
    await v1(server, 'POST', 'auth/up/users/u', { body: { password: 'pw' } });
    await v1(server, 'POST', 'auth/ar/role/r', { body: { token_policies: 'default' } });
  };
  afterAll(() => server.close());

  it('answers every path, method and body with a status below 500', async () => {
    const failures: string[] = [];
    for (const path of PATHS) {
      await prepare();
      for (const method of METHODS) {
        for (const body of method === 'POST' || method === 'PUT' ? BODIES : [undefined]) {
          const listing = method === 'LIST_QUERY';
          const reply = await v1(server, listing ? 'GET' : method, listing ? `${path}?list=true` : path, { body });
          if (reply.status >= 500) failures.push(`${method} ${path} ${JSON.stringify(body)} -> ${reply.status} ${reply.text}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // The fuzz deletes and disables what it can, but never token/.
    expect(Object.keys((await v1(server, 'GET', 'sys/auth')).body.data)).toContain('token/');
  }, 120_000);
});
