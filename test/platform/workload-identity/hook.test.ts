import { readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunVariable } from '../../../src/adapters/executor/index.js';
import type { PhaseStart, PhaseVerdict, RunPhase } from '../../../src/platform/runs/phase-hooks.js';
import { CredentialFiles } from '../../../src/platform/runs/credential-files.js';
import type { RunRow } from '../../../src/platform/runs/repo.js';
import { WorkloadIdentityHook } from '../../../src/platform/workload-identity/hook.js';
import { namesOfWorkspace } from '../../../src/platform/workload-identity/names.js';
import { startServer, type TestServer } from '../../helpers/app.js';
import { newWorkspace } from '../runs/helpers.js';
import { putPolicy, putRole, runPolicy, setUpJwtMethod, v1 } from './vault-setup.js';
import { verifyAgainstIssuer } from './verify.js';

type Proceed = Extract<PhaseVerdict, { kind: 'proceed' }>;

describe('the dynamic credentials phase hook, called directly', () => {
  let server: TestServer;
  let hook: WorkloadIdentityHook;
  let workspaceId: string;
  const runId = 'run-hookTest000001';

  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
    hook = new WorkloadIdentityHook(server.app.runtime, server.app.platform.services.signingKeys);
    workspaceId = await newWorkspace(server, 'wif-hook');
    await setUpJwtMethod(server.baseUrl, server.baseUrl);
    await putPolicy(server.baseUrl, 'plan-reads', runPolicy('path "secret/data/app" { capabilities = ["read"] }'));
    await putPolicy(server.baseUrl, 'apply-writes', runPolicy('path "secret/data/app" { capabilities = ["read", "create", "update"] }'));
    await putRole(server.baseUrl, 'plan', {
      sub: 'organization:understudy:project:*:workspace:wif-hook:run_phase:plan',
      policies: ['plan-reads'],
    });
    await putRole(server.baseUrl, 'apply', {
      sub: 'organization:understudy:project:*:workspace:wif-hook:run_phase:apply',
      policies: ['apply-writes'],
    });
    await putRole(server.baseUrl, 'either', {
      sub: 'organization:understudy:project:*:workspace:wif-hook:run_phase:*',
      policies: ['plan-reads'],
    });
    await putRole(server.baseUrl, 'elsewhere', {
      sub: 'organization:understudy:project:*:workspace:other:run_phase:*',
      policies: ['apply-writes'],
    });
  });
  afterAll(() => server.close());

  const env = (values: Record<string, string>) =>
    new Map<string, RunVariable>(Object.entries(values).map(([key, value]) => [key, { key, value, hcl: false, sensitive: false }]));

  // The engine removes a phase's credential files when the phase ends (engine-seams.test.ts).
  const credentials = new CredentialFiles(runId, null);
  afterAll(() => credentials.remove());

  function phaseStart(phase: RunPhase, environment: Record<string, string>): PhaseStart & { lines: string[] } {
    const lines: string[] = [];
    const names = namesOfWorkspace(server.app.runtime.store.db, workspaceId);
    if (!names) throw new Error('no workspace');
    return {
      lines,
      run: { id: runId, workspaceId } as RunRow,
      phase,
      names,
      environment: env(environment),
      variables: new Map(),
      log: (text) => lines.push(text),
      writeCredentialFile: (name, text) => credentials.write(name, text),
      signal: new AbortController().signal,
    };
  }

  const vaultEnv = (extra: Record<string, string> = {}) => ({
    TFC_VAULT_PROVIDER_AUTH: 'true',
    TFC_VAULT_ADDR: server.baseUrl,
    TFC_VAULT_PLAN_ROLE: 'plan',
    TFC_VAULT_APPLY_ROLE: 'apply',
    ...extra,
  });

  const proceed = (verdict: PhaseVerdict): Proceed => {
    if (verdict.kind !== 'proceed') throw new Error(`refused: ${verdict.message}`);
    return verdict;
  };
  const valueOf = (verdict: Proceed, key: string) => verdict.environment?.find((variable) => variable.key === key)?.value;

  it('does nothing without the variables', async () => {
    expect(await hook.start(phaseStart('plan', { OTHER: 'x' }))).toEqual({ kind: 'proceed' });
  });

  it('logs in with the phase role and hands over VAULT_ADDR and VAULT_TOKEN, a token with that role, revoked at the end', async () => {
    for (const [phase, policy] of [
      ['plan', 'plan-reads'],
      ['apply', 'apply-writes'],
    ] as const) {
      const start = phaseStart(phase, vaultEnv());
      const verdict = proceed(await hook.start(start));
      expect(valueOf(verdict, 'VAULT_ADDR')).toBe(server.baseUrl);
      const token = valueOf(verdict, 'VAULT_TOKEN') as string;
      expect(verdict.environment?.find((variable) => variable.key === 'VAULT_TOKEN')?.sensitive).toBe(true);
      expect(verdict.secrets).toContain(token);
      expect(start.lines.join('')).toContain(`logged in to ${server.baseUrl} with role "${phase}" for the ${phase} phase`);
      expect(start.lines.join('')).not.toContain(token);
      const self = await v1(server.baseUrl, 'GET', 'auth/token/lookup-self', { token });
      expect(self.status).toBe(200);
      expect(self.body.data.policies).toEqual([policy, 'default'].sort());
      expect(self.body.data.meta.role).toBe(phase);
      expect(self.body.data.path).toBe('auth/jwt/login');
      await verdict.finish?.();
      expect((await v1(server.baseUrl, 'GET', 'auth/token/lookup-self', { token })).status).toBe(403);
    }
  });

  it('the plan token cannot write what the apply token can', async () => {
    const plan = proceed(await hook.start(phaseStart('plan', vaultEnv())));
    const apply = proceed(await hook.start(phaseStart('apply', vaultEnv())));
    const write = (token: string) => v1(server.baseUrl, 'POST', 'secret/data/app', { token, body: { data: { answer: '42' } } });
    expect((await write(valueOf(plan, 'VAULT_TOKEN') as string)).status).toBe(403);
    expect((await write(valueOf(apply, 'VAULT_TOKEN') as string)).status).toBe(200);
    const read = await v1(server.baseUrl, 'GET', 'secret/data/app', { token: valueOf(plan, 'VAULT_TOKEN') as string });
    expect(read.body.data.data).toEqual({ answer: '42' });
    await plan.finish?.();
    await apply.finish?.();
  });

  it('TFC_VAULT_RUN_ROLE serves both phases; namespace and audience are passed on', async () => {
    const verdict = proceed(
      await hook.start(
        phaseStart('apply', {
          TFC_VAULT_PROVIDER_AUTH: 'true',
          TFC_VAULT_ADDR: `${server.baseUrl}/`,
          TFC_VAULT_RUN_ROLE: 'apply',
        }),
      ),
    );
    expect(valueOf(verdict, 'VAULT_ADDR')).toBe(server.baseUrl);
    expect(valueOf(verdict, 'VAULT_NAMESPACE')).toBeUndefined();
    await verdict.finish?.();
    const wrongAudience = await hook.start(phaseStart('apply', vaultEnv({ TFC_VAULT_WORKLOAD_IDENTITY_AUDIENCE: 'not.bound' })));
    expect(wrongAudience).toEqual({
      kind: 'error',
      message: expect.stringContaining('invalid audience (aud) claim: audience claim does not match any expected audience'),
    });
  });

  it("a role bound to another workspace refuses the phase with the method's own text", async () => {
    const verdict = await hook.start(phaseStart('plan', vaultEnv({ TFC_VAULT_PLAN_ROLE: 'elsewhere' })));
    expect(verdict.kind).toBe('error');
    const message = (verdict as { message: string }).message;
    expect(message).toContain(`login to ${server.baseUrl}/v1/auth/jwt/login with role "elsewhere" failed (400)`);
    expect(message).toContain('error validating claims: claim "sub" does not match any associated bound claim values');
    const tagged = await hook.start(
      phaseStart(
        'plan',
        vaultEnv({ TFC_VAULT_PROVIDER_AUTH_SECOND: 'true', TFC_VAULT_ADDR_SECOND: server.baseUrl, TFC_VAULT_RUN_ROLE_SECOND: 'elsewhere' }),
      ),
    );
    expect(tagged).toEqual({
      kind: 'error',
      message: expect.stringMatching(/^Vault dynamic credentials \(SECOND\): login to .* failed \(400\)/),
    });
  });

  it('refuses unusable settings with a message naming the variable', async () => {
    const refusals: [Record<string, string>, string][] = [
      [{ TFC_VAULT_PROVIDER_AUTH: 'true', TFC_VAULT_RUN_ROLE: 'plan' }, 'TFC_VAULT_ADDR is required'],
      [{ TFC_VAULT_PROVIDER_AUTH: 'true', TFC_VAULT_ADDR: server.baseUrl }, 'TFC_VAULT_RUN_ROLE (or TFC_VAULT_PLAN_ROLE) is required'],
      [{ TFC_VAULT_PROVIDER_AUTH: 'yes' }, 'TFC_VAULT_PROVIDER_AUTH must be true or false'],
      [{ ...vaultEnv(), TFC_VAULT_ENCODED_CACERT: 'bm90IGEgY2VydA==' }, 'TFC_VAULT_ENCODED_CACERT must be a base64-encoded PEM'],
      [{ 'TFC_VAULT_PROVIDER_AUTH_bad-tag': 'true' }, 'a tag may hold only letters, digits and underscores'],
      [{ ...vaultEnv(), TFC_VAULT_ADDR: 'http://127.0.0.1:1' }, 'could not reach http://127.0.0.1:1/v1/auth/jwt/login'],
    ];
    for (const [environment, message] of refusals) {
      const verdict = await hook.start(phaseStart('plan', environment));
      expect(verdict, JSON.stringify(environment)).toEqual({ kind: 'error', message: expect.stringContaining(message) });
    }
    expect(await hook.start(phaseStart('plan', { TFC_VAULT_PROVIDER_AUTH: 'false' }))).toEqual({ kind: 'proceed' });
  });

  it('TFC_WORKLOAD_IDENTITY_AUDIENCE (and tagged ones) put tokens for those audiences in the environment', async () => {
    const verdict = proceed(
      await hook.start(
        phaseStart('apply', { TFC_WORKLOAD_IDENTITY_AUDIENCE: 'aws.workload.identity', TFC_WORKLOAD_IDENTITY_AUDIENCE_GCP: 'gcp.aud' }),
      ),
    );
    const plain = valueOf(verdict, 'TFC_WORKLOAD_IDENTITY_TOKEN') as string;
    const tagged = valueOf(verdict, 'TFC_WORKLOAD_IDENTITY_TOKEN_GCP') as string;
    expect(verdict.secrets).toEqual(expect.arrayContaining([plain, tagged]));
    expect(await verifyAgainstIssuer(plain, server.baseUrl)).toMatchObject({
      aud: 'aws.workload.identity',
      terraform_run_id: runId,
      terraform_run_phase: 'apply',
      sub: 'organization:understudy:project:Default Project:workspace:wif-hook:run_phase:apply',
    });
    expect(await verifyAgainstIssuer(tagged, server.baseUrl)).toMatchObject({ aud: 'gcp.aud' });
  });

  it('tagged aliases get token files (0600, one line) named by tfc_vault_dynamic_credentials, the same in both phases', async () => {
    const environment = vaultEnv({
      TFC_VAULT_PROVIDER_AUTH_SECOND: 'true',
      TFC_VAULT_RUN_ROLE_SECOND: 'either',
      TFC_DEFAULT_VAULT_ADDR: server.baseUrl,
    });
    const paths: string[] = [];
    for (const phase of ['plan', 'apply'] as const) {
      const verdict = proceed(await hook.start(phaseStart(phase, environment)));
      const variable = verdict.variables?.find((candidate) => candidate.key === 'tfc_vault_dynamic_credentials');
      expect(variable?.hcl).toBe(true);
      const value = JSON.parse(variable?.value as string) as {
        default: Record<string, string>;
        aliases: Record<string, Record<string, string>>;
      };
      expect(Object.keys(value.aliases)).toEqual(['SECOND']);
      expect(value.default).toMatchObject({ address: server.baseUrl, namespace: '', ca_cert_file: '' });
      expect(value.aliases.SECOND).toMatchObject({ address: server.baseUrl, namespace: '', ca_cert_file: '' });
      for (const file of [value.default.token_filename, value.aliases.SECOND?.token_filename] as string[]) {
        const stat = statSync(file);
        expect(stat.isFile()).toBe(true);
        expect(stat.mode & 0o777).toBe(0o600);
        const token = readFileSync(file, 'utf8');
        expect(token).not.toContain('\n');
        expect(verdict.secrets).toContain(token);
        const self = await v1(server.baseUrl, 'GET', 'auth/token/lookup-self', { token });
        expect(self.body.data.meta.role).toBe(file === value.default.token_filename ? phase : 'either');
      }
      expect(valueOf(verdict, 'VAULT_TOKEN')).toBe(readFileSync(value.default.token_filename as string, 'utf8'));
      paths.push(variable?.value as string);
      const fileToken = readFileSync(value.default.token_filename as string, 'utf8');
      await verdict.finish?.();
      // The phase's end revokes what its files hold.
      expect((await v1(server.baseUrl, 'GET', 'auth/token/lookup-self', { token: fileToken })).status).toBe(403);
    }
    // The variable is saved in the plan: the apply must see the very same value.
    expect(paths[1]).toBe(paths[0]);
  });
});
