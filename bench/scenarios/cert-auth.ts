import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addGoals, cost } from '../goals.js';
import { startUnderstudy } from '../processes.js';
import type { BenchRequest, BenchTarget, OwnServer, Scenario } from '../scenario.js';
import { httpsCall } from '../tls-request.js';

/**
 * A certificate login next to a token creation, both over HTTPS on an understudy of their own
 * started with UNDERSTUDY_TLS=auto, both connections presenting the same client certificate
 * (issued by understudy's PKI engine): the difference is the login's own work (parsing the
 * certificate, checking its chain and constraints, linking the identity alias).
 */

const CERT_LOGIN = 'POST /v1/auth/cert/login (HTTPS, client certificate)';
const TOKEN_CREATE = 'POST /v1/auth/token/create (HTTPS)';

/** The CA file of the HTTPS understudy the current row runs on (set by `ownServer`). */
let caFile = '';

async function tlsServer(): Promise<OwnServer> {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-bench-tls-'));
  const understudy = await startUnderstudy({ UNDERSTUDY_TLS: 'auto', UNDERSTUDY_TLS_DIR: dir });
  caFile = join(dir, 'ca.pem');
  return {
    target: understudy.target,
    ...(understudy.pid === undefined ? {} : { pid: understudy.pid }),
    stop: async () => {
      await understudy.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function call(target: BenchTarget, method: string, path: string, body?: unknown): Promise<Record<string, unknown> | undefined> {
  const { status, text } = await httpsCall(`${target.baseUrl}/v1/${path}`, {
    method,
    headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ca: readFileSync(caFile, 'utf8'),
  });
  if (status >= 300) throw new Error(`${method} ${path} answered ${status}: ${text}`);
  return status === 200 ? (JSON.parse(text) as Record<string, unknown>) : undefined;
}

/** A PKI mount, an EC client certificate from it, and a cert auth entry trusting its CA. */
async function clientCertificate(target: BenchTarget): Promise<{ ca: string; cert: string; key: string }> {
  await call(target, 'POST', 'sys/mounts/clients', { type: 'pki' });
  const root = (await call(target, 'POST', 'clients/root/generate/internal', { common_name: 'bench clients', key_type: 'ec' }))?.[
    'data'
  ] as { certificate: string };
  await call(target, 'POST', 'clients/roles/agent', { allow_any_name: true, client_flag: true, key_type: 'ec', max_ttl: '24h' });
  const issued = (await call(target, 'POST', 'clients/issue/agent', { common_name: 'agent.bench.test', ttl: '24h' }))?.['data'] as {
    certificate: string;
    private_key: string;
  };
  await call(target, 'POST', 'sys/auth/cert', { type: 'cert' });
  await call(target, 'POST', 'auth/cert/certs/bench', { certificate: root.certificate, token_policies: 'default', token_ttl: '1h' });
  return { ca: readFileSync(caFile, 'utf8'), cert: issued.certificate, key: issued.private_key };
}

export const scenarios: Scenario[] = [
  {
    name: TOKEN_CREATE,
    ownServer: tlsServer,
    setup: async (target): Promise<BenchRequest> => ({
      method: 'POST',
      path: '/v1/auth/token/create',
      headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
      body: JSON.stringify({ policies: ['default'], ttl: '1h' }),
      tls: await clientCertificate(target),
    }),
  },
  {
    name: CERT_LOGIN,
    ownServer: tlsServer,
    setup: async (target): Promise<BenchRequest> => ({
      method: 'POST',
      path: '/v1/auth/cert/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
      tls: await clientCertificate(target),
    }),
  },
];

addGoals(cost(`${CERT_LOGIN} vs ${TOKEN_CREATE}`, CERT_LOGIN, TOKEN_CREATE, 2));
