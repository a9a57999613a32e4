import { describe, expect, it } from 'vitest';
import { SimulatedExecutor, FAILURE_MARKER } from '../../../src/adapters/executor/simulated.js';
import type { PlanJob } from '../../../src/adapters/executor/executor.js';
import { planJob } from './plan-job.js';

const executor = new SimulatedExecutor({ version: '1.11.4' });
const live = new AbortController().signal;

const job = (main: string, state: string | null = null, extra: Partial<PlanJob> = {}) => planJob('run-test', main, state, extra);

const CONFIG = `
variable "who" {
  default = "world"
}
locals {
  greeting = "hello"
}
resource "terraform_data" "one" {
  input = "a"
}
resource "terraform_data" "many" {
  count = 3
  input = "b"
}
output "greeting" {
  value = local.greeting
}
output "who" {
  value = var.who
}
`;

async function planAndApply(planned: PlanJob, log: string[] = []) {
  const plan = await executor.plan(planned, (text) => log.push(text), live);
  expect(plan.status).toBe('finished');
  const applied = await plan.prepared!.apply((text) => log.push(text), live);
  return { plan, applied };
}

describe('the simulated executor', () => {
  it('plans every resource instance as a creation and applies a deterministic state with the outputs', async () => {
    const log: string[] = [];
    const { plan, applied } = await planAndApply(await job(CONFIG), log);
    expect(plan.summary).toEqual({ additions: 4, changes: 0, destructions: 0, imports: 0 });
    expect(plan.hasChanges).toBe(true);
    expect(log.join('')).toContain('Plan: 4 to add, 0 to change, 0 to destroy.');
    expect(applied.status).toBe('finished');
    const state = JSON.parse(applied.state!);
    expect(state.serial).toBe(1);
    expect(state.outputs).toEqual({ greeting: { value: 'hello', type: 'string' }, who: { value: 'world', type: 'string' } });
    expect(state.resources.map((resource: { name: string; instances: unknown[] }) => [resource.name, resource.instances.length])).toEqual([
      ['many', 3],
      ['one', 1],
    ]);
    // The plan's JSON has the top-level keys `terraform show -json` gives (the Go client reads planned_values).
    const json = plan.json as Record<string, unknown> & {
      planned_values: { root_module: { resources: { address: string }[] }; outputs: object };
    };
    expect(Object.keys(json)).toEqual(
      expect.arrayContaining([
        'format_version',
        'terraform_version',
        'variables',
        'planned_values',
        'resource_changes',
        'output_changes',
        'prior_state',
        'configuration',
        'applyable',
        'complete',
        'errored',
      ]),
    );
    expect(json.planned_values.root_module.resources.map((resource) => resource.address).sort()).toEqual([
      'terraform_data.many[0]',
      'terraform_data.many[1]',
      'terraform_data.many[2]',
      'terraform_data.one',
    ]);
    expect(json.planned_values.outputs).toEqual({
      greeting: { sensitive: false, value: 'hello' },
      who: { sensitive: false, value: 'world' },
    });
    expect(json.variables).toEqual({ who: { value: 'world' } });
    expect(json.applyable).toBe(true);
    // Same run, same configuration: the same ids and lineage.
    const again = await planAndApply(await job(CONFIG));
    expect(again.applied.state).toBe(applied.state);
  });

  it('plans no changes against its own state, then destroys what left the configuration, keeping the lineage', async () => {
    const first = await planAndApply(await job(CONFIG));
    const unchanged = await executor.plan(await job(CONFIG, first.applied.state), () => undefined, live);
    expect(unchanged.hasChanges).toBe(false);
    expect(unchanged.summary).toEqual({ additions: 0, changes: 0, destructions: 0, imports: 0 });

    const smaller = CONFIG.replace(/resource "terraform_data" "many" \{[^}]*\}/, '');
    const { plan, applied } = await planAndApply(await job(smaller, first.applied.state));
    expect(plan.summary.destructions).toBe(3);
    const before = JSON.parse(first.applied.state!);
    const after = JSON.parse(applied.state!);
    expect(after.serial).toBe(2);
    expect(after.lineage).toBe(before.lineage);
    const one = (state: { resources: { name: string; instances: { attributes: { id: string } }[] }[] }) =>
      state.resources.find((resource) => resource.name === 'one')!.instances[0]!.attributes.id;
    expect(one(after)).toBe(one(before));
  });

  it('updates a block whose arguments changed, and run variables win over defaults', async () => {
    const first = await planAndApply(await job(CONFIG));
    const { plan, applied } = await planAndApply(
      await job(CONFIG.replace('input = "a"', 'input = "z"'), first.applied.state, {
        variables: [{ key: 'who', value: 'there', hcl: false, sensitive: false }],
      }),
    );
    expect(plan.summary).toEqual({ additions: 0, changes: 1, destructions: 0, imports: 0 });
    expect(JSON.parse(applied.state!).outputs.who.value).toBe('there');
  });

  it('a destroy plan removes everything', async () => {
    const first = await planAndApply(await job(CONFIG));
    const { plan, applied } = await planAndApply(await job(CONFIG, first.applied.state, { isDestroy: true }));
    expect(plan.summary.destructions).toBe(4);
    expect(JSON.parse(applied.state!).resources).toEqual([]);
  });

  it('fails the plan or the apply when the configuration asks, and on HCL that does not parse', async () => {
    const log: string[] = [];
    const failedPlan = await executor.plan(await job(`locals {\n  ${FAILURE_MARKER} = "plan"\n}\n`), (text) => log.push(text), live);
    expect(failedPlan.status).toBe('errored');
    expect(log.join('')).toContain('simulated plan failure');

    const plan = await executor.plan(await job(`locals {\n  ${FAILURE_MARKER} = "apply"\n}\n${CONFIG}`), () => undefined, live);
    expect(plan.status).toBe('finished');
    const applied = await plan.prepared!.apply(() => undefined, live);
    expect(applied).toMatchObject({ status: 'errored', state: null });

    const broken: string[] = [];
    expect((await executor.plan(await job('resource "x" {'), (text) => broken.push(text), live)).status).toBe('errored');
    expect(broken.join('')).toContain('main.tf is not valid HCL');
  });

  it('answers canceled when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    expect((await executor.plan(await job(CONFIG), () => undefined, controller.signal)).status).toBe('canceled');
  });
});
