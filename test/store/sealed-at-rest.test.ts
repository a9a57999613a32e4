import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunVariable } from '../../src/adapters/executor/index.js';
import { findSettings } from '../../src/platform/admin-settings/repo.js';
import { control, platform, startServer, type TestServer } from '../helpers/app.js';
import { createRun, newWorkspace, ORG, simpleConfig, uploadConfiguration, waitFor } from '../platform/runs/helpers.js';
import { v1 } from '../secrets/core/client.js';
import { pgQuery, pgTry, reachable, runId } from '../secrets/database/peers.js';
import { storeText, unsealToOldForm } from './sealed-secrets.js';

// Hidden values are sealed under the store's key (src/core/at-rest.ts, src/store/entry-barrier.ts):
// a copied store file holds none of them, and the server still uses each one.

const pgUp = await reachable('PostgreSQL', () => pgQuery({}, 'SELECT 1'));
const id = runId();
const admin = `${id}_admin`;
const rootPassword = `pw-${id}-Root-Sealed1`;
const database = `${id}_db`;

const SECRETS = {
  smtp: 'smtp-Pa55word-0c1d2e',
  cost: 'cost-SecretKey-77aa88',
  hmac: 'hmac-Key-5e6f7a8b9c',
  notify: 'notify-Token-8b9c0d1e',
  workspaceVar: 'ws-Sensitive-3d4e5f',
  setVar: 'set-Sensitive-1a2b3c',
  kv: 'kv-Secret-9f0e1d2c',
  clientSecret: 'oidc-Client-Secret-4a5b',
};

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'understudy-sealed-'));
  if (pgUp) {
    await pgQuery({}, `CREATE ROLE "${admin}" WITH LOGIN CREATEROLE PASSWORD '${rootPassword}'`);
    await pgQuery({}, `CREATE DATABASE "${database}" OWNER "${admin}"`);
  }
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
  if (pgUp) {
    await pgQuery({}, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    const roles = await pgQuery<{ rolname: string }>({}, 'SELECT rolname FROM pg_roles WHERE rolname LIKE $1', [`%${id}%`]);
    for (const { rolname } of roles.rows) await pgQuery({}, `DROP ROLE IF EXISTS "${rolname}"`);
  }
});

const start = (file: string) => startServer({ UNDERSTUDY_STORE: file, UNDERSTUDY_EXECUTOR: 'simulated' });

async function ok(server: TestServer, method: string, path: string, body?: unknown) {
  const reply = await v1(server, method, path, body === undefined ? {} : { body });
  expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
  return reply;
}

async function api(server: TestServer, method: string, path: string, body: unknown, status: number) {
  const reply = await platform(server, method, path, { body });
  expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBe(status);
  return reply.body;
}

/** What the server is given to keep, through its APIs; returns what later checks need. */
async function writeSecrets(server: TestServer) {
  await api(
    server,
    'PATCH',
    '/admin/smtp-settings',
    { data: { type: 'smtp-settings', attributes: { auth: 'plain', username: 'mailer', password: SECRETS.smtp } } },
    200,
  );
  const cost = { 'cloud-a-access-key-id': 'AKIAEXAMPLE', 'cloud-a-secret-key': SECRETS.cost };
  await api(server, 'PATCH', '/admin/cost-estimation-settings', { data: { type: 'cost-estimation-settings', attributes: cost } }, 200);
  const task = { name: `sealed-${id}`, url: 'http://127.0.0.1:9/hook', description: 'checks', category: 'task', 'hmac-key': SECRETS.hmac };
  await api(server, 'POST', `/organizations/${ORG}/tasks`, { data: { type: 'tasks', attributes: task } }, 201);

  const ws = await newWorkspace(server, `sealed-${id}-${Date.now()}`, { 'auto-apply': true });
  const notification = { name: 'hook', 'destination-type': 'generic', url: 'http://127.0.0.1:9/n', token: SECRETS.notify, enabled: false };
  await api(
    server,
    'POST',
    `/workspaces/${ws}/notification-configurations`,
    { data: { type: 'notification-configurations', attributes: notification } },
    201,
  );
  const wsVar = { key: 'WS_SECRET', value: SECRETS.workspaceVar, category: 'env', sensitive: true };
  await api(server, 'POST', `/workspaces/${ws}/vars`, { data: { type: 'vars', attributes: wsVar } }, 201);
  const set = await api(
    server,
    'POST',
    `/organizations/${ORG}/varsets`,
    {
      data: {
        type: 'varsets',
        attributes: { name: `sealed-${ws}` },
        relationships: { workspaces: { data: [{ type: 'workspaces', id: ws }] } },
      },
    },
    201,
  );
  const setVar = { key: 'SET_SECRET', value: 'first', category: 'env', sensitive: true };
  const added = await api(
    server,
    'POST',
    `/varsets/${set.data.id}/relationships/vars`,
    { data: { type: 'vars', attributes: setVar } },
    201,
  );
  // A PATCH path too: the new sensitive value is the one kept.
  await api(
    server,
    'PATCH',
    `/varsets/${set.data.id}/relationships/vars/${added.data.id}`,
    { data: { type: 'vars', attributes: { value: SECRETS.setVar } } },
    200,
  );
  await uploadConfiguration(server, ws, simpleConfig('hello'));

  for (const [path, type] of [
    ['sealkv', 'kv'],
    ['sealtransit', 'transit'],
    ['sealpki', 'pki'],
    ['sealssh', 'ssh'],
    ['sealdb', 'database'],
  ])
    await ok(server, 'POST', `sys/mounts/${path}`, { type });
  await ok(server, 'POST', 'sealkv/app', { password: SECRETS.kv });
  await ok(server, 'POST', 'sealtransit/keys/app', { exportable: true });
  const transitKey = Object.values((await ok(server, 'GET', 'sealtransit/export/encryption-key/app')).body.data.keys)[0] as string;
  const plaintext = Buffer.from('sealed at rest').toString('base64');
  const ciphertext = (await ok(server, 'POST', 'sealtransit/encrypt/app', { plaintext })).body.data.ciphertext as string;
  const root = await ok(server, 'POST', 'sealpki/root/generate/exported', { common_name: 'sealed.test', key_type: 'ec' });
  const pkiKey = (root.body.data.private_key as string).split('\n')[1] as string;
  await ok(server, 'POST', 'sealpki/roles/web', { allowed_domains: 'sealed.test', allow_subdomains: true, key_type: 'ec' });
  await ok(server, 'POST', 'sealssh/config/ca', { generate_signing_key: true });
  await ok(server, 'POST', 'sys/auth/sealjwt', { type: 'jwt' });
  await ok(server, 'POST', 'auth/sealjwt/config', {
    oidc_discovery_url: server.baseUrl,
    oidc_client_id: 'understudy',
    oidc_client_secret: SECRETS.clientSecret,
  });
  if (pgUp) {
    await ok(server, 'POST', 'sealdb/config/pg', {
      plugin_name: 'postgresql-database-plugin',
      connection_url: `postgresql://{{username}}:{{password}}@127.0.0.1:5432/${database}?sslmode=disable`,
      username: admin,
      password: rootPassword,
      allowed_roles: '*',
    });
    await ok(server, 'POST', 'sealdb/roles/app', {
      db_name: 'pg',
      creation_statements: [`CREATE ROLE "{{name}}" WITH LOGIN PASSWORD '{{password}}' VALID UNTIL '{{expiration}}';`],
    });
  }
  return { ws, hidden: [...Object.values(SECRETS), transitKey, pkiKey, ...(pgUp ? [rootPassword] : [])], ciphertext, plaintext };
}

/** A fresh ed25519 public key in OpenSSH's one-line form (RFC 8709: the type name, then the 32-byte key). */
function userPublicKey(): string {
  const raw = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const field = (part: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, part.length]), part]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')}`;
}

/** Records the environment each run's plan was given (a phase hook, as a run's workload sees it). */
function recordEnvironments(server: TestServer): Map<string, Map<string, RunVariable>> {
  const seen = new Map<string, Map<string, RunVariable>>();
  server.app.platform.services.runs.engine.addPhaseHook({
    name: 'environment recorder',
    start: async (phase) => {
      if (phase.phase === 'plan') seen.set(phase.run.id, new Map(phase.environment));
      return { kind: 'proceed' };
    },
  });
  return seen;
}

/** Every hidden value at work: a run's sensitive variables, transit, PKI, SSH, KV, the database engine, the admin secrets. */
async function useSecrets(server: TestServer, written: Awaited<ReturnType<typeof writeSecrets>>, runEnds = 'applied') {
  const environments = recordEnvironments(server);
  const run = await createRun(server, written.ws);
  expect(run.status).toBe(201);
  await waitFor(server, run.body.data.id, runEnds);
  const environment = environments.get(run.body.data.id);
  expect(environment?.get('WS_SECRET')?.value).toBe(SECRETS.workspaceVar);
  expect(environment?.get('SET_SECRET')?.value).toBe(SECRETS.setVar);

  const decrypted = await ok(server, 'POST', 'sealtransit/decrypt/app', { ciphertext: written.ciphertext });
  expect(decrypted.body.data.plaintext).toBe(written.plaintext);
  const issued = await ok(server, 'POST', 'sealpki/issue/web', { common_name: 'a.sealed.test', ttl: '1h' });
  expect(issued.body.data.certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
  await ok(server, 'POST', 'sealssh/roles/user', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*' });
  const signed = await ok(server, 'POST', 'sealssh/sign/user', { public_key: userPublicKey(), valid_principals: 'me' });
  expect(signed.body.data.signed_key).toMatch(/^ssh-ed25519-cert-v01@openssh.com /);
  expect((await ok(server, 'GET', 'sealkv/app')).body.data).toEqual({ password: SECRETS.kv });
  if (pgUp) {
    const creds = await ok(server, 'GET', 'sealdb/creds/app');
    expect(await pgTry(creds.body.data.username, creds.body.data.password, database)).toBe('ok');
  }
  const { db } = server.app.runtime.store;
  expect(findSettings(db, 'smtp')?.['password']).toBe(SECRETS.smtp);
  expect(findSettings(db, 'cost-estimation')?.['cloud-a-secret-key']).toBe(SECRETS.cost);
}

function expectNoneIn(file: string, hidden: readonly string[]) {
  const { bytes, rows } = storeText(file);
  for (const secret of hidden) {
    expect(bytes, secret).not.toContain(secret);
    expect(rows, secret).not.toContain(secret);
  }
  expect(rows).not.toContain('PRIVATE KEY');
}

// Each test starts servers three times and drives every engine and a run: generous on a loaded machine.
const HEAVY = 180_000;

describe('hidden values at rest', () => {
  it(
    'a copied store file holds none of them; after a restart and a snapshot restore the server still uses each',
    async () => {
      const file = join(work, 'fresh.db');
      let server = await start(file);
      let written: Awaited<ReturnType<typeof writeSecrets>>;
      try {
        written = await writeSecrets(server);
      } finally {
        await server.close();
      }
      expectNoneIn(file, written.hidden);

      server = await start(file);
      try {
        await useSecrets(server, written);
        expect((await control(server, 'POST', '/snapshots', { name: 'sealed' })).status).toBe(201);
        await ok(server, 'POST', 'sealkv/app', { password: 'changed' });
        expect((await control(server, 'POST', '/snapshots/sealed/restore')).status).toBe(200);
        // The state is the snapshot's, after the first run's apply: the next run finds nothing to change.
        await useSecrets(server, written, 'planned_and_finished');
      } finally {
        await server.close();
      }
    },
    HEAVY,
  );

  it(
    'a store written before sealing still reads, and its clear values are sealed at start',
    async () => {
      const file = join(work, 'old.db');
      let server = await start(file);
      let written: Awaited<ReturnType<typeof writeSecrets>>;
      try {
        written = await writeSecrets(server);
      } finally {
        await server.close();
      }
      unsealToOldForm(file);
      expect(storeText(file).rows).toContain(SECRETS.kv);
      expect(storeText(file).rows).toContain(SECRETS.hmac);

      server = await start(file);
      try {
        await useSecrets(server, written);
      } finally {
        await server.close();
      }
      expectNoneIn(file, written.hidden);
    },
    HEAVY,
  );
});
