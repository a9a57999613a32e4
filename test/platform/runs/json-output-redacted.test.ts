import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { createUserWithToken } from '../identity/helpers.js';
import { createRun, newWorkspace, uploadConfiguration, waitFor } from './helpers.js';

const CONFIG = `resource "terraform_data" "a" {
  input = "hello"
}
output "greeting" {
  value = "hello"
}
output "secret" {
  value     = "s3cret-value"
  sensitive = true
}
`;

/** The run's plan id, from the run's relationship. */
async function planOf(server: TestServer, runId: string): Promise<string> {
  const shown = await platform(server, 'GET', `/runs/${runId}`);
  return shown.body.data.relationships.plan.data.id as string;
}

describe('GET /api/v2/plans/:id/json-output-redacted (simulated executor)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated', UNDERSTUDY_RUN_PROGRESSION: 'immediate' });
  });
  afterAll(async () => server.close());

  it('answers the redacted plan with provider schemas once the plan finished, whatever the log setting', async () => {
    for (const structured of [true, false]) {
      const ws = await newWorkspace(server, `redacted-${structured}`, { 'structured-run-output-enabled': structured });
      await uploadConfiguration(server, ws, CONFIG);
      const runId = (await createRun(server, ws)).body.data.id as string;
      await waitFor(server, runId, 'planned');
      const planId = await planOf(server, runId);
      const response = await fetch(`${server.baseUrl}/api/v2/plans/${planId}/json-output-redacted`, {
        headers: { authorization: 'Bearer test-admin-token' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('application/json');
      const text = await response.text();
      expect(text).not.toContain('s3cret-value');
      const redacted = JSON.parse(text);
      expect(Object.keys(redacted)).toEqual([
        'plan_format_version',
        'output_changes',
        'resource_changes',
        'provider_format_version',
        'provider_schemas',
      ]);
      expect(redacted.resource_changes).toMatchObject([
        { address: 'terraform_data.a', provider_name: 'terraform.io/builtin/terraform', change: { actions: ['create'] } },
      ]);
      expect(redacted.output_changes.greeting).toMatchObject({ actions: ['create'], after: 'hello' });
      expect(redacted.output_changes.secret).toMatchObject({ actions: ['create'], after: null, after_sensitive: true });
      expect(Object.keys(redacted.provider_schemas['terraform.io/builtin/terraform'].resource_schemas)).toEqual(['terraform_data']);
      // The unredacted plan is still `terraform show -json`'s.
      const full = await platform(server, 'GET', `/plans/${planId}/json-output`);
      expect(full.status).toBe(200);
      expect(full.body.format_version).toBe('1.2');
      expect(full.body.provider_schemas).toBeUndefined();
    }
  });

  it('is the same 404 for a caller who cannot see the workspace, an unknown plan, an apply, and a plan that failed', async () => {
    const ws = await newWorkspace(server, 'redacted-hidden');
    await uploadConfiguration(server, ws, CONFIG);
    const runId = (await createRun(server, ws)).body.data.id as string;
    const planned = await waitFor(server, runId, 'planned');
    const planId = await planOf(server, runId);
    const outsider = await createUserWithToken(server, 'redacted-outsider');
    expect((await platform(server, 'GET', `/plans/${planId}/json-output-redacted`, { token: outsider.token })).status).toBe(404);
    expect((await platform(server, 'GET', `/plans/${planId}/json-output-redacted`, { token: null })).status).toBe(401);
    expect((await platform(server, 'GET', '/plans/plan-nope/json-output-redacted')).status).toBe(404);
    const applyId = (await platform(server, 'GET', `/runs/${planned.id}`)).body.data.relationships.apply.data.id as string;
    expect((await platform(server, 'GET', `/plans/${applyId}/json-output-redacted`)).status).toBe(404);

    const failing = await newWorkspace(server, 'redacted-failing');
    await uploadConfiguration(server, failing, `locals {\n  understudy_simulate_failure = "plan"\n}\n`);
    const failed = (await createRun(server, failing)).body.data.id as string;
    await waitFor(server, failed, 'errored');
    const missing = await platform(server, 'GET', `/plans/${await planOf(server, failed)}/json-output-redacted`);
    expect(missing.status).toBe(404);
    expect(JSON.stringify(missing.body)).toContain('the plan has no JSON output');
  });
});
