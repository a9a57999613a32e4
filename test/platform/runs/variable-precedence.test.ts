import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunVariable } from '../../../src/adapters/executor/index.js';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { createRun, newWorkspace, ORG, uploadConfiguration, waitFor } from './helpers.js';

let server: TestServer;
/** The environment each run's plan phase was given, by run id (seen through a phase hook). */
const environments = new Map<string, Map<string, RunVariable>>();

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
  server.app.platform.services.runs.engine.addPhaseHook({
    name: 'environment recorder',
    start: async (start) => {
      if (start.phase === 'plan') environments.set(start.run.id, new Map(start.environment));
      return { kind: 'proceed' };
    },
  });
});
afterAll(async () => server.close());

const CONFIG = ['set_only', 'workspace_wins', 'priority_wins', 'run_wins']
  .map((name) => `variable "${name}" {\n  default = "default"\n}\noutput "${name}" {\n  value = var.${name}\n}\n`)
  .join('');

async function variableSet(name: string, workspaceId: string, priority: boolean, variables: Record<string, [string, 'terraform' | 'env']>) {
  const created = await platform(server, 'POST', `/organizations/${ORG}/varsets`, {
    body: {
      data: {
        type: 'varsets',
        attributes: { name, priority },
        relationships: { workspaces: { data: [{ type: 'workspaces', id: workspaceId }] } },
      },
    },
  });
  expect(created.status).toBe(201);
  for (const [key, [value, category]] of Object.entries(variables)) {
    const added = await platform(server, 'POST', `/varsets/${created.body.data.id}/relationships/vars`, {
      body: { data: { type: 'vars', attributes: { key, value, category } } },
    });
    expect(added.status).toBe(201);
  }
}

async function workspaceVariable(workspaceId: string, key: string, value: string, category: 'terraform' | 'env') {
  const added = await platform(server, 'POST', `/workspaces/${workspaceId}/vars`, {
    body: { data: { type: 'vars', attributes: { key, value, category } } },
  });
  expect(added.status).toBe(201);
}

describe("a run's variables", () => {
  it('come from the variable sets applied to its workspace, below its own variables, except priority sets; run variables win', async () => {
    const ws = await newWorkspace(server, 'precedence', { 'auto-apply': true });
    await variableSet('plain-set', ws, false, {
      set_only: ['from-set', 'terraform'],
      workspace_wins: ['from-set', 'terraform'],
      priority_wins: ['from-set', 'terraform'],
      run_wins: ['from-set', 'terraform'],
      SET_ENV: ['from-set', 'env'],
      SHARED_ENV: ['from-set', 'env'],
    });
    await workspaceVariable(ws, 'workspace_wins', 'from-workspace', 'terraform');
    await workspaceVariable(ws, 'priority_wins', 'from-workspace', 'terraform');
    await workspaceVariable(ws, 'SHARED_ENV', 'from-workspace', 'env');
    await variableSet('priority-set', ws, true, { priority_wins: ['from-priority-set', 'terraform'] });
    await uploadConfiguration(server, ws, CONFIG);

    const created = await createRun(server, ws, { variables: [{ key: 'run_wins', value: '"from-run"' }] });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    await waitFor(server, id, 'applied');

    const outputs = await platform(server, 'GET', `/workspaces/${ws}/current-state-version?include=outputs`);
    const values = Object.fromEntries(
      (outputs.body.included as { attributes: { name: string; value: unknown } }[]).map(({ attributes }) => [
        attributes.name,
        attributes.value,
      ]),
    );
    expect(values).toEqual({
      set_only: 'from-set',
      workspace_wins: 'from-workspace',
      priority_wins: 'from-priority-set',
      run_wins: 'from-run',
    });
    const environment = environments.get(id);
    expect(environment?.get('SET_ENV')?.value).toBe('from-set');
    expect(environment?.get('SHARED_ENV')?.value).toBe('from-workspace');
  });
});
