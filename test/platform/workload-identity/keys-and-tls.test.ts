import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunVariable } from '../../../src/adapters/executor/index.js';
import type { PhaseStart } from '../../../src/platform/runs/phase-hooks.js';
import { CredentialFiles } from '../../../src/platform/runs/credential-files.js';
import type { RunRow } from '../../../src/platform/runs/repo.js';
import { WorkloadIdentityHook } from '../../../src/platform/workload-identity/hook.js';
import { namesOfWorkspace } from '../../../src/platform/workload-identity/names.js';
import { ADMIN_TOKEN, control, platform, ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { newWorkspace } from '../runs/helpers.js';
import { putPolicy, putRole, runPolicy, setUpJwtMethod, v1 } from './vault-setup.js';

describe("the JWT method and the platform's key rotation", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
    await newWorkspace(server, 'rotating');
    await setUpJwtMethod(server.baseUrl, server.baseUrl);
    await putPolicy(server.baseUrl, 'reads', runPolicy(''));
    await putRole(server.baseUrl, 'rot', { sub: 'organization:understudy:project:*:workspace:rotating:run_phase:*', policies: ['reads'] });
  });
  afterAll(() => server.close());

  const mint = async () =>
    (await control(server, 'POST', '/workload-identity-tokens', { workspace: 'understudy/rotating' })).body.token as string;
  const login = (jwt: string) => v1(server.baseUrl, 'POST', 'auth/jwt/login', { token: null, body: { role: 'rot', jwt } });

  it('a rotated key still verifies; once trimmed, its tokens fail as soon as the method fetches the key set again', async () => {
    const old = await mint();
    expect((await login(old)).status).toBe(200);
    expect((await platform(server, 'POST', '/admin/oidc-settings/actions/rotate-key')).status).toBe(204);
    const fresh = await mint();
    expect((await login(old)).status).toBe(200);
    // A kid the method has not seen makes it fetch the key set again.
    expect((await login(fresh)).status).toBe(200);
    expect((await platform(server, 'POST', '/admin/oidc-settings/actions/trim-key')).status).toBe(204);
    // A config write fetches the key set anew.
    await v1(server.baseUrl, 'POST', 'auth/jwt/config', { body: { oidc_discovery_url: server.baseUrl, bound_issuer: server.baseUrl } });
    const refused = await login(old);
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual(['error validating token: error verifying token signature: failed to verify id token signature']);
    expect((await login(fresh)).status).toBe(200);
  });
});

describe('a login over HTTPS with TFC_VAULT_ENCODED_CACERT (UNDERSTUDY_TLS=auto)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-wif-tls-'));
  let server: TestServer;
  let issuer: string;
  let ca: string;
  let workspaceId: string;

  /** The secrets API in process: the test itself does not need to trust the local CA. */
  const inject = async (method: 'POST' | 'PUT', url: string, payload: unknown) => {
    const answer = await server.app.fastify.inject({
      method,
      url: `/v1/${url}`,
      headers: { 'x-vault-token': ROOT_TOKEN },
      payload: payload as object,
    });
    return { status: answer.statusCode, body: answer.body };
  };

  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated', UNDERSTUDY_TLS: 'auto', UNDERSTUDY_TLS_DIR: dir });
    issuer = server.app.runtime.publicUrl();
    ca = readFileSync(server.app.tls?.caFile as string, 'utf8');
    const created = await server.app.fastify.inject({
      method: 'POST',
      url: '/api/v2/organizations/understudy/workspaces',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/vnd.api+json' },
      payload: JSON.stringify({ data: { type: 'workspaces', attributes: { name: 'secure' } } }),
    });
    expect(created.statusCode).toBe(201);
    workspaceId = (JSON.parse(created.body) as { data: { id: string } }).data.id;
  }, 60_000);
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes https://localhost:PORT as the issuer; the method trusts it with the CA and the platform logs in over HTTPS', async () => {
    expect(issuer).toBe(`https://localhost:${(server.app.fastify.server.address() as { port: number }).port}`);
    expect((await inject('POST', 'sys/auth/jwt', { type: 'jwt' })).status).toBe(204);
    const configured = await inject('POST', 'auth/jwt/config', {
      oidc_discovery_url: issuer,
      oidc_discovery_ca_pem: ca,
      bound_issuer: issuer,
    });
    expect(configured.status, configured.body).toBe(204);
    expect((await inject('PUT', 'sys/policies/acl/reads', { policy: runPolicy('') })).status).toBe(204);
    const role = await inject('POST', 'auth/jwt/role/secure', {
      role_type: 'jwt',
      user_claim: 'terraform_full_workspace',
      bound_audiences: ['vault.workload.identity'],
      bound_claims: { terraform_workspace_name: 'secure' },
      token_policies: ['reads'],
    });
    expect(role.status, role.body).toBe(204);

    const hook = new WorkloadIdentityHook(server.app.runtime, server.app.platform.services.signingKeys);
    const names = namesOfWorkspace(server.app.runtime.store.db, workspaceId);
    const variables: Record<string, string> = {
      TFC_VAULT_PROVIDER_AUTH: 'true',
      TFC_VAULT_ADDR: issuer,
      TFC_VAULT_RUN_ROLE: 'secure',
      TFC_VAULT_ENCODED_CACERT: Buffer.from(ca).toString('base64'),
    };
    const credentials = new CredentialFiles('run-tlsTest0000001', null);
    const start = (environment: Record<string, string>): PhaseStart => ({
      run: { id: 'run-tlsTest0000001' } as RunRow,
      phase: 'plan',
      names: names as NonNullable<typeof names>,
      environment: new Map<string, RunVariable>(
        Object.entries(environment).map(([key, value]) => [key, { key, value, hcl: false, sensitive: false }]),
      ),
      variables: new Map(),
      log: () => undefined,
      writeCredentialFile: (name, text) => credentials.write(name, text),
      signal: new AbortController().signal,
    });
    const verdict = await hook.start(start(variables));
    if (verdict.kind !== 'proceed') throw new Error(verdict.message);
    const get = (key: string) => verdict.environment?.find((variable) => variable.key === key)?.value;
    expect(get('VAULT_ADDR')).toBe(issuer);
    expect(readFileSync(get('VAULT_CACERT') as string, 'utf8')).toBe(ca);
    const self = await server.app.fastify.inject({
      method: 'GET',
      url: '/v1/auth/token/lookup-self',
      headers: { 'x-vault-token': get('VAULT_TOKEN') as string },
    });
    expect(JSON.parse(self.body).data.meta.role).toBe('secure');
    await verdict.finish?.();
    await credentials.remove();

    // Without the CA, the certificate is not trusted and the phase is refused saying so.
    const { TFC_VAULT_ENCODED_CACERT: _ca, ...untrusted } = variables;
    const refused = await hook.start(start(untrusted));
    expect(refused).toEqual({ kind: 'error', message: expect.stringContaining(`could not reach ${issuer}/v1/auth/jwt/login`) });
  });
});
