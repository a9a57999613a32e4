import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { requireTerraform, terraform } from '../../helpers/terraform.js';
import { createRun, newWorkspace, uploadConfiguration, waitFor } from '../../platform/runs/helpers.js';

/** A sensitive workspace variable's value: it must never reach the inspector. */
const SECRET = 'hunter2-never-shown';

const CONFIG = `variable "secret_word" {
  sensitive = true
}
resource "terraform_data" "a" {
  input = "hello"
}
output "word" {
  value     = var.secret_word
  sensitive = true
}
`;

const get = (server: TestServer, path: string) => fetch(`${server.baseUrl}${path}`, { redirect: 'manual' });

async function json(server: TestServer, path: string) {
  const response = await get(server, path);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> & { error?: string } };
}

/** An applied run in a new workspace with a sensitive variable; answers the run id. */
async function appliedRun(server: TestServer, workspace: string): Promise<{ workspaceId: string; runId: string }> {
  const workspaceId = await newWorkspace(server, workspace, { 'auto-apply': true });
  const variable = await platform(server, 'POST', `/workspaces/${workspaceId}/vars`, {
    body: { data: { type: 'vars', attributes: { key: 'secret_word', value: SECRET, category: 'terraform', sensitive: true } } },
  });
  expect(variable.status).toBe(201);
  await uploadConfiguration(server, workspaceId, CONFIG);
  const runId = (await createRun(server, workspaceId, { message: 'from the test' })).body.data.id as string;
  await waitFor(server, runId, 'applied');
  return { workspaceId, runId };
}

describe('the run link and the inspector run view over plain HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated', UNDERSTUDY_RUN_PROGRESSION: 'immediate' });
  });
  afterAll(async () => server?.close());

  it('/app/:org/:workspace/runs/:id opens the inspector on that run, and the page has the run view', async () => {
    const { runId } = await appliedRun(server, 'linked');
    const link = await get(server, `/app/understudy/linked/runs/${runId}`);
    expect(link.status).toBe(302);
    expect(link.headers.get('location')).toBe(`/_emulator/ui?run=${runId}`);
    const page = await get(server, link.headers.get('location')!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    for (const id of ['run-timeline', 'run-events', 'plan-log', 'apply-log', 'run-task-stages', 'run-policy-checks', 'runs'])
      expect(html).toContain(`id="${id}"`);
    // The real UI's other spelling of a run link opens the same view.
    const other = await get(server, `/app/understudy/workspaces/linked/runs/${runId}`);
    expect(other.headers.get('location')).toBe(`/_emulator/ui?run=${runId}`);
  });

  it("the run view has the run's timeline, events and logs as the API gives them, and no sensitive value", async () => {
    const { runId } = await appliedRun(server, 'viewed');
    const { status, body } = await json(server, `/_emulator/ui/runs/${runId}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: runId, organization: 'understudy', workspace: 'viewed', status: 'applied', message: 'from the test' });

    const api = (await platform(server, 'GET', `/runs/${runId}?include=plan,apply`)).body;
    const stamps = api.data.attributes['status-timestamps'] as Record<string, string>;
    const timeline = body.timeline as { status: string; at: string }[];
    expect(timeline.map((entry) => entry.at).sort()).toEqual(Object.values(stamps).sort());
    expect(timeline.map((entry) => entry.status)).toContain('applied');
    expect(timeline.at(-1)).toEqual({ status: 'applied', at: stamps['applied-at'] });
    const events = (await platform(server, 'GET', `/runs/${runId}/run-events`)).body.data as { attributes: { action: string } }[];
    expect((body.events as { action: string }[]).map((event) => event.action)).toEqual(events.map((event) => event.attributes.action));

    // The logs are what a reader of log-read-url gets, without the stream's STX/ETX marks.
    for (const kind of ['plans', 'applies'] as const) {
      const phase = api.included.find((item: { type: string }) => item.type === kind);
      const streamed = await (await fetch(phase.attributes['log-read-url'])).text();
      const shown = body[kind === 'plans' ? 'plan' : 'apply'] as { log: string; status: string };
      expect(`\u0002${shown.log}\u0003`).toBe(streamed);
      expect(shown.status).toBe(phase.attributes.status);
    }
    expect((body.plan as { log: string }).log).toContain('Plan: 1 to add');
    expect(body['task-stages']).toEqual([]);
    expect(body['policy-checks']).toEqual([]);
    expect(JSON.stringify(body)).not.toContain(SECRET);
  });

  it("lists a workspace's runs newest first, or an organization's; an unknown one is a 404", async () => {
    const { workspaceId, runId: first } = await appliedRun(server, 'listed');
    const second = (await createRun(server, workspaceId)).body.data.id as string;
    // Nothing changed since the first: the second ends after its plan.
    await waitFor(server, second, 'planned_and_finished');
    const listed = await json(server, '/_emulator/ui/runs?workspace=understudy/listed');
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(2);
    expect((listed.body.rows as { id: string }[]).map((run) => run.id)).toEqual([second, first]);
    const byId = await json(server, `/_emulator/ui/runs?workspace=${workspaceId}`);
    expect((byId.body.rows as { id: string }[]).map((run) => run.id)).toEqual([second, first]);
    const organization = await json(server, '/_emulator/ui/runs?organization=understudy');
    expect((organization.body.rows as { id: string }[]).map((run) => run.id)).toEqual(expect.arrayContaining([first, second]));

    expect((await json(server, '/_emulator/ui/runs?workspace=understudy/nowhere')).status).toBe(404);
    const missing = await json(server, '/_emulator/ui/runs/run-doesnotexist');
    expect(missing).toEqual({ status: 404, body: { error: 'no run run-doesnotexist' } });
  });

  it('workspace links (self-html, the run list) open its runs; the tokens page and unknown pages say what is here', async () => {
    const workspaceId = await newWorkspace(server, 'pointed');
    const shown = await platform(server, 'GET', `/workspaces/${workspaceId}`);
    const selfHtml = shown.body.data.links['self-html'] as string;
    const workspaceLink = await get(server, selfHtml);
    expect(workspaceLink.status).toBe(302);
    expect(workspaceLink.headers.get('location')).toBe('/_emulator/ui?workspace=understudy%2Fpointed');
    expect((await get(server, '/app/understudy/pointed/runs')).headers.get('location')).toBe(
      '/_emulator/ui?workspace=understudy%2Fpointed',
    );
    expect((await get(server, '/app/understudy/workspaces')).headers.get('location')).toBe('/_emulator/ui?organization=understudy');

    const tokens = await get(server, '/app/settings/tokens?source=terraform-login');
    expect(tokens.status).toBe(200);
    const tokensText = await tokens.text();
    expect(tokensText).toContain('TFE_TOKEN');
    expect(tokensText).toContain('/api/v2/users/:id/authentication-tokens');

    const unknown = await get(server, '/app/understudy/pointed/search/qry-1/<b>x</b>');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('text/html');
    const unknownText = await unknown.text();
    expect(unknownText).toContain('/_emulator/ui');
    expect(unknownText).not.toContain('<b>x</b>');
  });
});

describe('the run view behind the control token', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated', UNDERSTUDY_CONTROL_TOKEN: 'runs-control-token' });
  });
  afterAll(async () => server?.close());

  it('the link still leads to the page (which asks for the token); the run data needs it', async () => {
    const { runId } = await appliedRun(server, 'guarded');
    const link = await get(server, `/app/understudy/guarded/runs/${runId}`);
    expect(link.status).toBe(302);
    const page = await get(server, link.headers.get('location')!);
    expect(page.status).toBe(401);
    expect(await page.text()).toContain('id="login"');
    expect((await get(server, `/_emulator/ui/runs/${runId}`)).status).toBe(401);
    expect((await get(server, '/_emulator/ui/runs')).status).toBe(401);
    const authorized = await fetch(`${server.baseUrl}/_emulator/ui/runs/${runId}`, {
      headers: { authorization: 'Bearer runs-control-token' },
    });
    expect(authorized.status).toBe(200);
  });
});

const version = requireTerraform('the run link printed by terraform plan');

describe.skipIf(version === null)('the run link terraform plan prints', () => {
  it('opens that run in the inspector', async () => {
    const server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated', UNDERSTUDY_RUN_PROGRESSION: 'immediate' });
    const dir = mkdtempSync(join(tmpdir(), 'understudy-link-'));
    try {
      writeFileSync(
        join(dir, 'main.tf'),
        `terraform {
  cloud {
    hostname     = "understudy.test"
    organization = "understudy"
    workspaces { name = "printed-link" }
  }
}
resource "terraform_data" "a" {
  input = "hello"
}
`,
      );
      expect((await terraform(dir, server.baseUrl, 'init', '-input=false')).status).toBe(0);
      const plan = await terraform(dir, server.baseUrl, 'plan', '-input=false');
      expect(plan.status).toBe(0);
      // The CLI prints the link on its configured hostname; here that name stands for the server.
      const printed = /https:\/\/understudy\.test(\/app\/understudy\/printed-link\/runs\/(run-[A-Za-z0-9]+))/.exec(plan.stdout);
      expect(printed).not.toBeNull();
      const link = await get(server, printed![1]!);
      expect(link.status).toBe(302);
      expect(link.headers.get('location')).toBe(`/_emulator/ui?run=${printed![2]}`);
      const view = await json(server, `/_emulator/ui/runs/${printed![2]}`);
      expect(view.body).toMatchObject({ workspace: 'printed-link', status: 'planned_and_finished', 'plan-only': true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await server.close();
    }
  });
});
