import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, platform, startServer, type TestServer } from '../../helpers/app.js';
import { publicUrl } from '../../../src/server/address.js';
import { loadConfig } from '../../../src/config.js';
import type { TlsMaterial } from '../../../src/server/tls/material.js';
import { decode, verifyAgainstIssuer } from './verify.js';

async function createWorkspace(server: TestServer, name: string, project?: string): Promise<string> {
  const created = await platform(server, 'POST', '/organizations/understudy/workspaces', {
    body: {
      data: {
        type: 'workspaces',
        attributes: { name },
        ...(project ? { relationships: { project: { data: { type: 'projects', id: project } } } } : {}),
      },
    },
  });
  expect(created.status).toBe(201);
  return created.body.data.id as string;
}

describe('workload identity tokens from the control plane', () => {
  let server: TestServer;
  let workspaceId: string;
  beforeAll(async () => {
    server = await startServer();
    workspaceId = await createWorkspace(server, 'wif-tokens');
  });
  afterAll(() => server.close());

  it('mints an RS256 token an independent verifier accepts, with the run claims on the virtual clock', async () => {
    await control(server, 'POST', '/clock', { advance: '10h' });
    // The virtual clock goes on ticking in real time from where it was moved to.
    const clockSeconds = async () => Math.floor(Date.parse((await control(server, 'GET', '/clock')).body.now as string) / 1000);
    const earliest = await clockSeconds();
    const minted = await control(server, 'POST', '/workload-identity-tokens', {
      workspace: workspaceId,
      phase: 'apply',
      audience: 'my.aud',
    });
    expect(minted.status).toBe(201);
    const { header } = decode(minted.body.token);
    expect(header).toEqual({ typ: 'JWT', alg: 'RS256', kid: minted.body.kid });
    const claims = await verifyAgainstIssuer(minted.body.token, server.baseUrl);
    const latest = await clockSeconds();
    const now = claims.iat as number;
    expect(now).toBeGreaterThanOrEqual(earliest);
    expect(now).toBeLessThanOrEqual(latest);
    expect(now).toBeGreaterThan(Date.now() / 1000 + 9 * 3600);
    const organization = (await platform(server, 'GET', '/organizations/understudy')).body.data.attributes['external-id'];
    const project = (await platform(server, 'GET', `/workspaces/${workspaceId}`)).body.data.relationships.project.data.id;
    expect(claims).toEqual({
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      iss: server.baseUrl,
      aud: 'my.aud',
      iat: now,
      nbf: now,
      // The apply timeout of the general settings: 24h by default.
      exp: now + 24 * 3600,
      sub: 'organization:understudy:project:Default Project:workspace:wif-tokens:run_phase:apply',
      terraform_organization_id: organization,
      terraform_organization_name: 'understudy',
      terraform_project_id: project,
      terraform_project_name: 'Default Project',
      terraform_workspace_id: workspaceId,
      terraform_workspace_name: 'wif-tokens',
      terraform_full_workspace: 'organization:understudy:project:Default Project:workspace:wif-tokens',
      terraform_run_id: expect.stringMatching(/^run-/),
      terraform_run_phase: 'apply',
    });
  });

  it('defaults to the plan phase, the vault audience and the plan timeout; takes an organization/workspace name and a ttl', async () => {
    const plan = await control(server, 'POST', '/workload-identity-tokens', { workspace: 'understudy/wif-tokens' });
    expect(plan.status).toBe(201);
    expect(plan.body.claims).toMatchObject({
      aud: 'vault.workload.identity',
      terraform_run_phase: 'plan',
      terraform_workspace_id: workspaceId,
    });
    expect(plan.body.claims.exp - plan.body.claims.iat).toBe(2 * 3600);
    const short = await control(server, 'POST', '/workload-identity-tokens', { workspace: workspaceId, ttl: '5m' });
    expect(short.body.claims.exp - short.body.claims.iat).toBe(300);
    expect(plan.body.claims.jti).not.toBe(short.body.claims.jti);
  });

  it('names a project the workspace was moved to in sub and the project claims', async () => {
    const project = await platform(server, 'POST', '/organizations/understudy/projects', {
      body: { data: { type: 'projects', attributes: { name: 'Team Infra' } } },
    });
    expect(project.status).toBe(201);
    const id = await createWorkspace(server, 'in-project', project.body.data.id);
    const minted = await control(server, 'POST', '/workload-identity-tokens', { workspace: id });
    expect(minted.body.claims).toMatchObject({
      sub: 'organization:understudy:project:Team Infra:workspace:in-project:run_phase:plan',
      terraform_project_id: project.body.data.id,
      terraform_project_name: 'Team Infra',
    });
  });

  it('refuses bad input with the control plane error shape and mints nothing', async () => {
    const cases: [unknown, number, RegExp][] = [
      [{}, 400, /workspace is required/],
      [{ workspace: 'ws-nope' }, 404, /no workspace ws-nope/],
      [{ workspace: 'understudy/nope' }, 404, /no workspace/],
      [{ workspace: workspaceId, phase: 'destroy' }, 400, /phase must be plan or apply/],
      [{ workspace: workspaceId, audience: '' }, 400, /audience/],
      [{ workspace: workspaceId, ttl: 'soon' }, 400, /ttl/],
      [{ workspace: workspaceId, run: 'run-nope' }, 404, /no run run-nope/],
      [[1, 2], 400, /JSON object/],
    ];
    for (const [body, status, message] of cases) {
      const answer = await control(server, 'POST', '/workload-identity-tokens', body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body.error).toMatch(message);
    }
  });

  it('a rotated key keeps verifying until trimmed; new tokens name the new key; after a trim the old tokens no longer verify', async () => {
    const before = await control(server, 'POST', '/workload-identity-tokens', { workspace: workspaceId });
    expect((await platform(server, 'POST', '/admin/oidc-settings/actions/rotate-key')).status).toBe(204);
    const after = await control(server, 'POST', '/workload-identity-tokens', { workspace: workspaceId });
    expect(after.body.kid).not.toBe(before.body.kid);
    await expect(verifyAgainstIssuer(before.body.token, server.baseUrl)).resolves.toMatchObject({ aud: 'vault.workload.identity' });
    await expect(verifyAgainstIssuer(after.body.token, server.baseUrl)).resolves.toMatchObject({ aud: 'vault.workload.identity' });
    expect((await platform(server, 'POST', '/admin/oidc-settings/actions/trim-key')).status).toBe(204);
    await expect(verifyAgainstIssuer(before.body.token, server.baseUrl)).rejects.toThrow('no key with the token kid');
    await expect(verifyAgainstIssuer(after.body.token, server.baseUrl)).resolves.toBeTruthy();
  });

  it('publishes the same issuer however the server was reached (127.0.0.1 or localhost)', async () => {
    const port = new URL(server.baseUrl).port;
    const viaLocalhost = (await (await fetch(`http://localhost:${port}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(viaLocalhost.issuer).toBe(server.baseUrl);
    expect(viaLocalhost.jwks_uri).toBe(`${server.baseUrl}/.well-known/jwks`);
    expect(viaLocalhost.claims_supported).toContain('terraform_full_workspace');
  });
});

describe('UNDERSTUDY_PUBLIC_URL', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_PUBLIC_URL: 'https://tfe.example.test:8443' });
  });
  afterAll(() => server.close());

  it('is the issuer of the discovery document and the iss of every token, byte for byte', async () => {
    const discovery = (await (await fetch(`${server.baseUrl}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery.issuer).toBe('https://tfe.example.test:8443');
    expect(discovery.jwks_uri).toBe('https://tfe.example.test:8443/.well-known/jwks');
    await createWorkspace(server, 'elsewhere');
    const token = (await control(server, 'POST', '/workload-identity-tokens', { workspace: 'understudy/elsewhere' })).body.token as string;
    expect(decode(token).claims.iss).toBe('https://tfe.example.test:8443');
  });

  it('must be scheme and host only', () => {
    for (const bad of ['https://x.test/', 'https://x.test/path', 'ftp://x.test', 'x.test'])
      expect(() => loadConfig({ UNDERSTUDY_PUBLIC_URL: bad })).toThrow(/UNDERSTUDY_PUBLIC_URL must be/);
    expect(loadConfig({ UNDERSTUDY_PUBLIC_URL: 'http://[::1]:8200' }).publicUrl).toBe('http://[::1]:8200');
  });

  it('defaults to the banner address, and to https://localhost:PORT under TLS on a local bind', () => {
    const tls = {} as TlsMaterial;
    expect(publicUrl({ host: '127.0.0.1', publicUrl: null }, 8200, null)).toBe('http://127.0.0.1:8200');
    expect(publicUrl({ host: '0.0.0.0', publicUrl: null }, 8200, null)).toBe('http://127.0.0.1:8200');
    expect(publicUrl({ host: '127.0.0.1', publicUrl: null }, 8200, tls)).toBe('https://localhost:8200');
    expect(publicUrl({ host: '0.0.0.0', publicUrl: null }, 9000, tls)).toBe('https://localhost:9000');
    expect(publicUrl({ host: 'build.internal', publicUrl: null }, 8200, tls)).toBe('https://build.internal:8200');
    expect(publicUrl({ host: '127.0.0.1', publicUrl: 'https://a.test' }, 8200, tls)).toBe('https://a.test');
  });
});
