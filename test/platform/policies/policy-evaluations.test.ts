import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform } from '../../helpers/app.js';
import { untilRunStatus } from '../../clients/interrupt-helpers.js';
import { createRun, simpleConfig, uploadConfiguration } from '../runs/helpers.js';
import { ORG, startWorld, tokenOf, workspaceWithLevels, type World } from '../workspaces/world.js';

let world: World;

beforeAll(async () => {
  world = await startWorld({ UNDERSTUDY_EXECUTOR: 'simulated' });
});
afterAll(async () => world.close());

const call = (method: string, path: string, options: { token?: string; body?: unknown } = {}) =>
  platform(world.server, method, path, options);

type Resource = { id: string; type: string; attributes: Record<string, unknown>; relationships: Record<string, { data: unknown }> };

/** An OPA policy with `source` uploaded; fails when the source carries the marker. */
async function opaPolicy(name: string, level: string, failing: boolean): Promise<string> {
  const created = await call('POST', `/organizations/${ORG}/policies`, {
    body: {
      data: {
        type: 'policies',
        attributes: {
          name,
          kind: 'opa',
          query: `data.${name.replace(/-/g, '_')}.rule`,
          description: `${name} rules`,
          'enforcement-level': level,
        },
      },
    },
  });
  expect(created.status).toBe(201);
  const source = failing
    ? 'package example rule["not allowed"] { true } # understudy:fail\n'
    : 'package example rule["not allowed"] { false }\n';
  const uploaded = await fetch(`${world.server.baseUrl}/api/v2/policies/${created.body.data.id}/upload`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/octet-stream' },
    body: source,
  });
  expect(uploaded.status).toBe(204);
  return created.body.data.id as string;
}

async function policySet(name: string, workspace: string, attributes: Record<string, unknown>, policyIds: string[] = []): Promise<string> {
  const created = await call('POST', `/organizations/${ORG}/policy-sets`, {
    body: {
      data: {
        type: 'policy-sets',
        attributes: { name, ...attributes },
        relationships: {
          policies: { data: policyIds.map((id) => ({ type: 'policies', id })) },
          workspaces: { data: [{ type: 'workspaces', id: workspace }] },
        },
      },
    },
  });
  expect(created.status).toBe(201);
  return created.body.data.id as string;
}

/** A set directory packed as go-tfe's Upload packs it: a gzip-compressed tar made by the real `tar`. */
function archive(files: Record<string, string>): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'policy-set-'));
  try {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(dir, dirname(path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    return execFileSync('tar', ['-czf', '-', '-C', dir, '.']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function uploadVersion(set: string, files: Record<string, string>): Promise<void> {
  const version = await call('POST', `/policy-sets/${set}/versions`);
  expect(version.status).toBe(201);
  const put = await fetch(version.body.data.links.upload as string, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: new Uint8Array(archive(files)),
  });
  expect(put.status).toBe(200);
}

async function workspace(name: string, attributes: Record<string, unknown> = {}): Promise<string> {
  const { id } = await workspaceWithLevels(world, name, attributes);
  await uploadConfiguration(world.server, id, simpleConfig(name));
  return id;
}

async function stagesOf(runId: string, token?: string): Promise<Resource[]> {
  const listed = await call('GET', `/runs/${runId}/task-stages`, token ? { token } : {});
  expect(listed.status).toBe(200);
  return listed.body.data as Resource[];
}

async function evaluationOf(stageId: string): Promise<Resource> {
  const listed = await call('GET', `/task-stages/${stageId}/policy-evaluations`);
  expect(listed.status).toBe(200);
  expect(listed.body.data).toHaveLength(1);
  return listed.body.data[0] as Resource;
}

async function outcomesOf(evaluationId: string, query = ''): Promise<Resource[]> {
  const listed = await call('GET', `/policy-evaluations/${evaluationId}/policy-set-outcomes${query}`);
  expect(listed.status).toBe(200);
  return listed.body.data as Resource[];
}

async function newRun(ws: string, attributes: Record<string, unknown> = {}): Promise<string> {
  const created = await createRun(world.server, ws, attributes);
  expect(created.status).toBe(201);
  return created.body.data.id as string;
}

describe('OPA policy evaluations in the post-plan task stage', () => {
  it('an advisory failure passes: the stage, its evaluation and the set outcome show what was found', async () => {
    const ws = await workspace('opa-advisory');
    const failing = await opaPolicy('opa-advisory-fails', 'advisory', true);
    const passing = await opaPolicy('opa-advisory-passes', 'mandatory', false);
    await policySet('opa-advisory-set', ws, { kind: 'opa', description: 'advisory set' }, [failing, passing]);
    const runId = await newRun(ws);
    // The stage and its pending evaluation exist from the run's creation (go-tfe lists them on a fresh run).
    const [early] = await stagesOf(runId);
    expect(early?.attributes.stage).toBe('post_plan');
    expect(early?.relationships['policy-evaluations']?.data).toHaveLength(1);
    await untilRunStatus(world.server, runId, 'planned');

    const [stage] = await stagesOf(runId);
    expect(stage?.attributes).toMatchObject({
      stage: 'post_plan',
      status: 'passed',
      actions: { 'is-overridable': false },
      permissions: { 'can-override-policy': true, 'can-override-tasks': false, 'can-override': true },
    });
    const evaluation = await evaluationOf(stage!.id);
    expect(evaluation.type).toBe('policy-evaluations');
    expect(evaluation.attributes).toMatchObject({
      status: 'passed',
      'policy-kind': 'opa',
      'result-count': { 'advisory-failed': 1, 'mandatory-failed': 0, passed: 1, errored: 0 },
    });
    expect(Object.keys(evaluation.attributes['status-timestamps'] as object).sort()).toEqual(['passed-at', 'running-at']);
    expect(evaluation.relationships['policy-attachable']?.data).toEqual({ id: stage!.id, type: 'task-stages' });
    expect((await call('GET', `/policy-evaluations/${evaluation.id}`)).body.data).toEqual(evaluation);

    const [outcome] = await outcomesOf(evaluation.id);
    expect(outcome?.attributes).toEqual({
      outcomes: [
        {
          enforcement_level: 'advisory',
          query: 'data.opa_advisory_fails.rule',
          status: 'failed',
          policy_name: 'opa-advisory-fails',
          description: 'opa-advisory-fails rules',
        },
        {
          enforcement_level: 'mandatory',
          query: 'data.opa_advisory_passes.rule',
          status: 'passed',
          policy_name: 'opa-advisory-passes',
          description: 'opa-advisory-passes rules',
        },
      ],
      error: null,
      overridable: false,
      'policy-set-name': 'opa-advisory-set',
      'policy-set-description': 'advisory set',
      result_count: { 'advisory-failed': 1, 'mandatory-failed': 0, passed: 1, errored: 0 },
    });
    expect(evaluation.relationships['policy-set-outcomes']?.data).toEqual([{ id: outcome!.id, type: 'policy-set-outcomes' }]);
    expect((await call('GET', `/policy-set-outcomes/${outcome!.id}`)).body.data).toEqual(outcome);

    // go-tfe's filters: groups are alternatives, members of a group all hold; outcomes are narrowed too.
    expect(
      await outcomesOf(evaluation.id, '?filter[0][status]=errored&filter[1][enforcement_level]=mandatory&filter[1][status]=failed'),
    ).toEqual([]);
    const matching = await outcomesOf(evaluation.id, '?filter[0][status]=passed&filter[0][enforcement_level]=mandatory');
    expect((matching[0]?.attributes.outcomes as unknown[]).length).toBe(1);
    const wrong = await call('GET', `/policy-evaluations/${evaluation.id}/policy-set-outcomes?filter[0][status]=sideways`);
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0]).toMatchObject({
      detail: 'filter[0][status] must be one of passed, failed, errored',
      source: { parameter: 'filter[0][status]' },
    });

    // Includes: on the stage, and the stage on the run.
    const read = await call('GET', `/task-stages/${stage!.id}?include=policy_evaluations.policy_set_outcomes`);
    expect((read.body.included as Resource[]).map((item) => item.type).sort()).toEqual(['policy-evaluations', 'policy-set-outcomes']);
    const withStages = await call('GET', `/runs/${runId}?include=task_stages`);
    const included = (withStages.body.included as Resource[]).find((item) => item.type === 'task-stages');
    expect(included?.relationships['policy-evaluations']?.data).toEqual([{ id: evaluation.id, type: 'policy-evaluations' }]);
  });

  it('a mandatory failure in an overridable set holds the run until someone with Manage Policy Overrides overrides it', async () => {
    const ws = await workspace('opa-held', { 'auto-apply': true });
    const policy = await opaPolicy('opa-held-fails', 'mandatory', true);
    await policySet('opa-held-set', ws, { kind: 'opa', overridable: true }, [policy]);
    const runId = await newRun(ws);
    await untilRunStatus(world.server, runId, 'post_plan_awaiting_decision');
    const held = await call('GET', `/runs/${runId}`);
    expect(held.body.data.attributes.actions).toMatchObject({ 'is-discardable': true, 'is-confirmable': false });

    const [stage] = await stagesOf(runId);
    expect(stage?.attributes).toMatchObject({ status: 'awaiting_override', actions: { 'is-overridable': true } });
    const evaluation = await evaluationOf(stage!.id);
    expect(evaluation.attributes).toMatchObject({ status: 'failed', 'result-count': { 'mandatory-failed': 1 } });
    expect((await outcomesOf(evaluation.id))[0]?.attributes.overridable).toBe(true);

    // A reader sees the stage without the right to override it, and hears 404 on the action; an outsider sees nothing.
    const [asReader] = await stagesOf(runId, tokenOf('reader'));
    expect(asReader?.attributes.permissions).toMatchObject({ 'can-override-policy': false, 'can-override': false });
    expect((await call('POST', `/task-stages/${stage!.id}/actions/override`, { token: tokenOf('reader') })).status).toBe(404);
    expect((await call('GET', `/task-stages/${stage!.id}/policy-evaluations`, { token: tokenOf('outsider') })).status).toBe(404);
    expect((await call('GET', `/policy-evaluations/${evaluation.id}`, { token: tokenOf('outsider') })).status).toBe(404);
    const bad = await call('POST', `/task-stages/${stage!.id}/actions/override`, { body: { comment: 42 } });
    expect(bad.status).toBe(422);
    expect((await stagesOf(runId))[0]?.attributes.status).toBe('awaiting_override');

    const overridden = await call('POST', `/task-stages/${stage!.id}/actions/override`, { body: { comment: 'accepted risk' } });
    expect(overridden.status).toBe(200);
    expect(overridden.body.data).toMatchObject({ id: stage!.id, type: 'task-stages', attributes: { status: 'passed' } });
    expect(overridden.body.data.attributes['status-timestamps']['overridden-at']).toBeDefined();
    await untilRunStatus(world.server, runId, 'applied');
    expect((await evaluationOf(stage!.id)).attributes.status).toBe('overridden');
    const comments = await call('GET', `/runs/${runId}/comments`);
    expect((comments.body.data as Resource[]).map((comment) => comment.attributes.body)).toEqual(['accepted risk']);
    const again = await call('POST', `/task-stages/${stage!.id}/actions/override`);
    expect(again.status).toBe(409);
    expect(again.body.errors[0].title).toBe('transition not allowed');
  });

  it('a held run can be discarded instead: the stage is canceled', async () => {
    const ws = await workspace('opa-discarded');
    const policy = await opaPolicy('opa-discarded-fails', 'mandatory', true);
    await policySet('opa-discarded-set', ws, { kind: 'opa', overridable: true }, [policy]);
    const runId = await newRun(ws);
    await untilRunStatus(world.server, runId, 'post_plan_awaiting_decision');
    expect((await call('POST', `/runs/${runId}/actions/discard`, { body: {} })).status).toBe(202);
    await untilRunStatus(world.server, runId, 'discarded');
    expect((await stagesOf(runId))[0]?.attributes.status).toBe('canceled');
  });

  it('a mandatory failure in a set that may not be overridden errors the run', async () => {
    const ws = await workspace('opa-locked');
    const policy = await opaPolicy('opa-locked-fails', 'mandatory', true);
    await policySet('opa-locked-set', ws, { kind: 'opa' }, [policy]);
    const runId = await newRun(ws);
    await untilRunStatus(world.server, runId, 'errored');
    const [stage] = await stagesOf(runId);
    expect(stage?.attributes.status).toBe('failed');
    expect((await evaluationOf(stage!.id)).attributes.status).toBe('failed');
    expect((await call('POST', `/task-stages/${stage!.id}/actions/override`)).status).toBe(409);
  });

  it('a plan-only run has nothing to override for: its stage fails and the run finishes', async () => {
    const ws = await workspace('opa-speculative');
    const policy = await opaPolicy('opa-speculative-fails', 'mandatory', true);
    await policySet('opa-speculative-set', ws, { kind: 'opa', overridable: true }, [policy]);
    const runId = await newRun(ws, { 'plan-only': true });
    await untilRunStatus(world.server, runId, 'planned_and_finished');
    expect((await stagesOf(runId))[0]?.attributes.status).toBe('failed');
  });

  it('sets apply through the project and globally, and a global set leaves out the workspaces it excludes', async () => {
    const inProject = await workspace('opa-project');
    const excluded = await workspace('opa-excluded');
    const project = (await call('GET', `/workspaces/${inProject}`)).body.data.relationships.project.data.id as string;
    const policy = await opaPolicy('opa-scoped-passes', 'mandatory', false);
    const byProject = await call('POST', `/organizations/${ORG}/policy-sets`, {
      body: {
        data: {
          type: 'policy-sets',
          attributes: { name: 'opa-project-set', kind: 'opa' },
          relationships: {
            policies: { data: [{ type: 'policies', id: policy }] },
            projects: { data: [{ type: 'projects', id: project }] },
          },
        },
      },
    });
    expect(byProject.status).toBe(201);
    const global = await call('POST', `/organizations/${ORG}/policy-sets`, {
      body: {
        data: {
          type: 'policy-sets',
          attributes: { name: 'opa-global-set', kind: 'opa', global: true },
          relationships: {
            policies: { data: [{ type: 'policies', id: policy }] },
            'workspace-exclusions': { data: [{ type: 'workspaces', id: excluded }] },
          },
        },
      },
    });
    expect(global.status).toBe(201);
    const names = async (ws: string) => {
      const runId = await newRun(ws, { 'plan-only': true });
      await untilRunStatus(world.server, runId, 'planned_and_finished');
      const [stage] = await stagesOf(runId);
      if (!stage) return [];
      const outcomes = await outcomesOf((await evaluationOf(stage.id)).id);
      return outcomes.map((outcome) => outcome.attributes['policy-set-name']);
    };
    // Other tests' sets are attached to their own workspaces only; the global set reaches every other workspace.
    expect(await names(inProject)).toEqual(['opa-global-set', 'opa-project-set']);
    expect(await names(excluded)).toEqual(['opa-project-set']);
    await call('DELETE', `/policy-sets/${global.body.data.id}`);
    await call('DELETE', `/policy-sets/${byProject.body.data.id}`);
  });

  it('bad ids are 404s', async () => {
    expect((await call('GET', '/task-stages/ts-missing/policy-evaluations')).status).toBe(404);
    expect((await call('GET', '/policy-evaluations/poleval-missing/policy-set-outcomes')).status).toBe(404);
    expect((await call('GET', '/policy-set-outcomes/polsetout-missing')).status).toBe(404);
    expect((await call('POST', '/task-stages/ts-missing/actions/override')).status).toBe(404);
  });
});

describe("a policy set version's archive is evaluated", () => {
  it('OPA: policies.hcl names the policies, their queries find the files, the level defaults to advisory', async () => {
    const ws = await workspace('opa-archive', { 'auto-apply': true });
    const set = await policySet('opa-archive-set', ws, { kind: 'opa', overridable: true });
    await uploadVersion(set, {
      'policies.hcl': [
        'policy "tags" {\n  query = "data.terraform.tags.deny"\n  enforcement_level = "mandatory"\n}',
        'policy "sizes" {\n  query = "data.terraform.sizes.deny"\n}',
      ].join('\n'),
      'rules/tags.rego': 'package terraform.tags\n\ndeny[msg] { msg := "untagged" } # understudy:fail\n',
      'rules/sizes.rego': 'package terraform.sizes\n\ndeny[msg] { false }\n',
    });
    const runId = await newRun(ws);
    await untilRunStatus(world.server, runId, 'post_plan_awaiting_decision');
    const [stage] = await stagesOf(runId);
    const [outcome] = await outcomesOf((await evaluationOf(stage!.id)).id);
    expect(outcome?.attributes.outcomes).toEqual([
      { enforcement_level: 'advisory', query: 'data.terraform.sizes.deny', status: 'passed', policy_name: 'sizes', description: '' },
      { enforcement_level: 'mandatory', query: 'data.terraform.tags.deny', status: 'failed', policy_name: 'tags', description: '' },
    ]);
    expect(outcome?.attributes.result_count).toEqual({ 'advisory-failed': 0, 'mandatory-failed': 1, passed: 1, errored: 0 });
    expect((await call('POST', `/task-stages/${stage!.id}/actions/override`, { body: null })).status).toBe(200);
    await untilRunStatus(world.server, runId, 'applied');
  });

  it('an archive whose configuration does not parse errors the set, the stage and the run', async () => {
    const ws = await workspace('opa-broken');
    const set = await policySet('opa-broken-set', ws, { kind: 'opa', overridable: true });
    await uploadVersion(set, { 'policies.hcl': 'policy "tags" {\n', 'tags.rego': 'package tags\n' });
    const runId = await newRun(ws);
    await untilRunStatus(world.server, runId, 'errored');
    const [stage] = await stagesOf(runId);
    expect(stage?.attributes.status).toBe('errored');
    const evaluation = await evaluationOf(stage!.id);
    expect(evaluation.attributes).toMatchObject({ status: 'errored', 'result-count': { errored: 1 } });
    const [outcome] = await outcomesOf(evaluation.id);
    expect(outcome?.attributes.error).toMatch(/^policies\.hcl is not valid HCL: /);
  });

  it('sentinel: sentinel.hcl gives each policy its source and level; a hard failure in the archive errors the policy check', async () => {
    const ws = await workspace('sentinel-archive');
    const set = await policySet('sentinel-archive-set', ws, {});
    await uploadVersion(set, {
      'sentinel.hcl': [
        'policy "tags" {\n  source = "./policies/tags.sentinel"\n  enforcement_level = "hard-mandatory"\n}',
        'policy "sizes" {\n  source = "./policies/sizes.sentinel"\n}',
      ].join('\n'),
      'policies/tags.sentinel': 'main = rule { false } # understudy:fail\n',
      'policies/sizes.sentinel': 'main = rule { true }\n',
    });
    const runId = await newRun(ws);
    await untilRunStatus(world.server, runId, 'errored');
    const checks = await call('GET', `/runs/${runId}/policy-checks`);
    const check = (checks.body.data as Resource[])[0];
    expect(check?.attributes).toMatchObject({ status: 'hard_failed' });
    expect(check?.attributes.result).toMatchObject({ passed: 1, 'hard-failed': 1, 'advisory-failed': 0 });
    const output = await fetch(`${world.server.baseUrl}/api/v2/policy-checks/${check?.id}/output`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(await output.text()).toBe('sizes (advisory): PASS\ntags (hard-mandatory): FAIL\n');
    // Sentinel sets outside agents are a policy check, not a task stage.
    expect(await stagesOf(runId)).toEqual([]);
  });

  it('without a configuration file every policy file of the kind counts, at advisory', async () => {
    const ws = await workspace('sentinel-bare', { 'auto-apply': true });
    const set = await policySet('sentinel-bare-set', ws, {});
    await uploadVersion(set, { 'a.sentinel': 'main = rule { false } # understudy:fail\n', 'b.sentinel': 'main = rule { true }\n' });
    const runId = await newRun(ws);
    await untilRunStatus(world.server, runId, 'applied');
    const checks = await call('GET', `/runs/${runId}/policy-checks`);
    expect((checks.body.data as Resource[])[0]?.attributes.result).toMatchObject({ passed: 1, 'advisory-failed': 1, 'hard-failed': 0 });
  });

  it('an agent-enabled sentinel set is evaluated in the task stage; a soft-mandatory failure may be overridden', async () => {
    const ws = await workspace('sentinel-agent');
    const set = await policySet('sentinel-agent-set', ws, { 'agent-enabled': true, 'policy-tool-version': '0.24.0' });
    await uploadVersion(set, {
      'sentinel.hcl': 'policy "soft" {\n  enforcement_level = "soft-mandatory"\n}\n',
      'soft.sentinel': 'main = rule { false } # understudy:fail\n',
    });
    const runId = await newRun(ws);
    await untilRunStatus(world.server, runId, 'post_plan_awaiting_decision');
    const [stage] = await stagesOf(runId);
    const evaluation = await evaluationOf(stage!.id);
    expect(evaluation.attributes).toMatchObject({ 'policy-kind': 'sentinel', status: 'failed', 'result-count': { 'mandatory-failed': 1 } });
    expect((await call('GET', `/runs/${runId}/policy-checks`)).body.data).toEqual([]);
  });
});

describe('policy-paths on runs', () => {
  it('are recorded and shown; bad ones are 422s that create nothing', async () => {
    const ws = await workspace('policy-paths');
    const runId = await newRun(ws, { 'policy-paths': ['policies', 'more/policies'] });
    expect((await call('GET', `/runs/${runId}`)).body.data.attributes['policy-paths']).toEqual(['policies', 'more/policies']);
    expect((await call('GET', `/runs/${await newRun(ws)}`)).body.data.attributes['policy-paths']).toEqual([]);
    const before = (await call('GET', `/workspaces/${ws}/runs`)).body.data.length as number;
    const cases: [unknown, string][] = [
      [['/etc'], 'policy-paths must be relative paths: "/etc" is absolute'],
      [['a/../..'], 'policy-paths must stay inside the configuration: "a/../.." contains ..'],
      [[''], 'policy-paths must not contain an empty path'],
    ];
    for (const [paths, detail] of cases) {
      const refused = await createRun(world.server, ws, { 'policy-paths': paths });
      expect(refused.status).toBe(422);
      expect(refused.body.errors[0]).toMatchObject({ detail, source: { pointer: '/data/attributes/policy-paths' } });
    }
    expect((await createRun(world.server, ws, { 'policy-paths': 'policies' })).status).toBe(422);
    expect((await call('GET', `/workspaces/${ws}/runs`)).body.data.length).toBe(before);
  });
});
