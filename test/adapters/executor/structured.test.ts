import { describe, expect, it } from 'vitest';
import type { PlanJob } from '../../../src/adapters/executor/executor.js';
import { SimulatedExecutor } from '../../../src/adapters/executor/simulated.js';
import { changeSummaryLine, redactedPlan } from '../../../src/adapters/executor/structured.js';
import { planJob } from './plan-job.js';

const NOW = new Date('2026-03-04T05:06:07.000Z');
const executor = new SimulatedExecutor({ version: '1.11.4', now: () => NOW });
const live = new AbortController().signal;

const job = (main: string, state: string | null = null, extra: Partial<PlanJob> = {}) =>
  planJob('run-structured', main, state, { structured: true, ...extra });

/** The log's lines after the plain header, each parsed: every one must be a JSON object. */
function uiLines(log: string[]): Record<string, unknown>[] {
  const lines = log.join('').split('\n').filter(Boolean);
  expect(lines.slice(0, 3)).toEqual([
    'Terraform v1.11.4',
    'on linux_amd64 (understudy simulated executor)',
    'Initializing plugins and modules...',
  ]);
  return lines.slice(3).map((line) => JSON.parse(line) as Record<string, unknown>);
}

const common = { '@level': 'info', '@module': 'terraform.ui', '@timestamp': '2026-03-04T05:06:07.000Z' };
const resource = (name: string, key: number | null = null) => ({
  addr: key === null ? `terraform_data.${name}` : `terraform_data.${name}[${key}]`,
  module: '',
  resource: key === null ? `terraform_data.${name}` : `terraform_data.${name}[${key}]`,
  implied_provider: 'terraform',
  resource_type: 'terraform_data',
  resource_name: name,
  resource_key: key,
});

const CONFIG = (input: string, extra = '') => `
resource "terraform_data" "one" {
  input = "${input}"
}
output "greeting" {
  value = "hello"
}
output "secret" {
  value     = "hidden-value"
  sensitive = true
}
${extra}`;

describe('structured run output of the simulated executor', () => {
  it('writes the plan as the machine-readable UI lines of `terraform plan -json`', async () => {
    const log: string[] = [];
    const plan = await executor.plan(
      await job(CONFIG('a', 'resource "terraform_data" "many" {\n  count = 2\n}\n')),
      (text) => log.push(text),
      live,
    );
    expect(plan.status).toBe('finished');
    expect(uiLines(log)).toEqual([
      { ...common, '@message': 'Terraform 1.11.4', terraform: '1.11.4', ui: '1.2', type: 'version' },
      {
        ...common,
        '@message': 'terraform_data.many[0]: Plan to create',
        change: { resource: resource('many', 0), action: 'create' },
        type: 'planned_change',
      },
      {
        ...common,
        '@message': 'terraform_data.many[1]: Plan to create',
        change: { resource: resource('many', 1), action: 'create' },
        type: 'planned_change',
      },
      {
        ...common,
        '@message': 'terraform_data.one: Plan to create',
        change: { resource: resource('one'), action: 'create' },
        type: 'planned_change',
      },
      {
        ...common,
        '@message': 'Plan: 3 to add, 0 to change, 0 to destroy.',
        changes: { add: 3, change: 0, import: 0, remove: 0, operation: 'plan' },
        type: 'change_summary',
      },
      {
        ...common,
        '@message': 'Outputs: 2',
        outputs: { greeting: { sensitive: false, action: 'create' }, secret: { sensitive: true, action: 'create' } },
        type: 'outputs',
      },
    ]);
    // Nothing in the plan's log gives the sensitive output's value away.
    expect(log.join('')).not.toContain('hidden-value');
  });

  it('writes the apply as `terraform apply -json` does: starts, completions with ids, the summary, typed outputs', async () => {
    const log: string[] = [];
    const plan = await executor.plan(await job(CONFIG('a')), () => undefined, live);
    const applied = await plan.prepared!.apply((text) => log.push(text), live);
    expect(applied.status).toBe('finished');
    const id = JSON.parse(applied.state!).resources[0].instances[0].attributes.id as string;
    expect(uiLines(log)).toEqual([
      { ...common, '@message': 'Terraform 1.11.4', terraform: '1.11.4', ui: '1.2', type: 'version' },
      {
        ...common,
        '@message': 'terraform_data.one: Plan to create',
        change: { resource: resource('one'), action: 'create' },
        type: 'planned_change',
      },
      {
        ...common,
        '@message': 'terraform_data.one: Creating...',
        hook: { resource: resource('one'), action: 'create' },
        type: 'apply_start',
      },
      {
        ...common,
        '@message': `terraform_data.one: Creation complete after 0s [id=${id}]`,
        hook: { resource: resource('one'), action: 'create', id_key: 'id', id_value: id, elapsed_seconds: 0 },
        type: 'apply_complete',
      },
      {
        ...common,
        '@message': 'Apply complete! Resources: 1 added, 0 changed, 0 destroyed.',
        changes: { add: 1, change: 0, import: 0, remove: 0, operation: 'apply' },
        type: 'change_summary',
      },
      {
        ...common,
        '@message': 'Outputs: 2',
        // A sensitive output has its type but no value, as the CLI writes it.
        outputs: { greeting: { sensitive: false, type: 'string', value: 'hello' }, secret: { sensitive: true, type: 'string' } },
        type: 'outputs',
      },
    ]);
    expect(log.join('')).not.toContain('hidden-value');
  });

  it('words updates and removals as the CLI does, and a destroy run as a destroy', async () => {
    const first = await executor.plan(await job(CONFIG('a', 'resource "terraform_data" "gone" {}\n')), () => undefined, live);
    const state = (await first.prepared!.apply(() => undefined, live)).state;
    const log: string[] = [];
    const second = await executor.plan(await job(CONFIG('b'), state), (text) => log.push(text), live);
    const lines = uiLines(log);
    expect(lines.filter((line) => line.type === 'planned_change').map((line) => [line['@message'], line.change])).toEqual([
      ['terraform_data.one: Plan to update', { resource: resource('one'), action: 'update' }],
      [
        'terraform_data.gone: Plan to delete',
        { resource: resource('gone'), action: 'delete', reason: 'delete_because_no_resource_config' },
      ],
    ]);
    expect(lines.find((line) => line.type === 'outputs')!.outputs).toEqual({
      greeting: { sensitive: false, action: 'noop' },
      secret: { sensitive: true, action: 'noop' },
    });
    const applyLog: string[] = [];
    await second.prepared!.apply((text) => applyLog.push(text), live);
    const messages = uiLines(applyLog).map((line) => line['@message']);
    const id = (address: string) =>
      JSON.parse(state!).resources.find((entry: { name: string }) => `terraform_data.${entry.name}` === address).instances[0].attributes.id;
    expect(messages).toEqual(
      expect.arrayContaining([
        `terraform_data.one: Modifying... [id=${id('terraform_data.one')}]`,
        `terraform_data.one: Modifications complete after 0s [id=${id('terraform_data.one')}]`,
        `terraform_data.gone: Destroying... [id=${id('terraform_data.gone')}]`,
        'terraform_data.gone: Destruction complete after 0s',
        'Apply complete! Resources: 0 added, 1 changed, 1 destroyed.',
      ]),
    );

    const destroyLog: string[] = [];
    const destroy = await executor.plan(await job(CONFIG('b'), state, { isDestroy: true }), () => undefined, live);
    await destroy.prepared!.apply((text) => destroyLog.push(text), live);
    expect(uiLines(destroyLog).find((line) => line.type === 'change_summary')).toMatchObject({
      '@message': 'Destroy complete! Resources: 2 destroyed.',
      changes: { add: 0, change: 0, remove: 2, operation: 'destroy' },
    });
  });

  it('keeps the plain log when structured run output is off', async () => {
    const log: string[] = [];
    await executor.plan(await job(CONFIG('a'), null, { structured: false }), (text) => log.push(text), live);
    expect(log.join('')).toContain('  # terraform_data.one will be created\n');
    expect(log.join('')).not.toContain('{"@level"');
  });

  it('gives the redacted plan the schema of each simulated type under its provider', async () => {
    const plan = await executor.plan(await job(CONFIG('a', 'resource "null_resource" "n" {}\n')), () => undefined, live);
    const redacted = plan.redactedJson as {
      plan_format_version: string;
      provider_format_version: string;
      resource_changes: { provider_name: string; type: string; change: { after_unknown: unknown } }[];
      provider_schemas: Record<string, { resource_schemas: Record<string, { block: { attributes: Record<string, unknown> } }> }>;
    };
    expect(redacted.plan_format_version).toBe('1.2');
    expect(redacted.provider_format_version).toBe('1.0');
    expect(redacted.resource_changes.map((change) => [change.provider_name, change.type, change.change.after_unknown])).toEqual([
      ['registry.terraform.io/hashicorp/null', 'null_resource', { id: true }],
      ['terraform.io/builtin/terraform', 'terraform_data', { id: true }],
    ]);
    for (const change of redacted.resource_changes)
      expect(Object.keys(redacted.provider_schemas[change.provider_name]!.resource_schemas[change.type]!.block.attributes)).toEqual([
        'digest',
        'id',
      ]);
    // The values the plan holds in the clear are not part of it.
    expect(Object.keys(redacted)).not.toEqual(expect.arrayContaining(['variables']));
    expect(JSON.stringify(redacted)).not.toContain('hidden-value');
  });
});

describe('the redacted plan', () => {
  it('nulls what the sensitivity markers flag, keeps the rest, and drops the parts outside the changes', () => {
    const plan = {
      format_version: '1.2',
      variables: { password: { value: 'pw' } },
      prior_state: { values: {} },
      configuration: {},
      planned_values: {},
      resource_changes: [
        {
          address: 'x.y',
          mode: 'managed',
          type: 'x',
          name: 'y',
          provider_name: 'registry.terraform.io/hashicorp/x',
          change: {
            actions: ['update'],
            before: { name: 'n', password: 'old', tags: ['a', 'secret-tag'], nested: { key: 'k', token: 't' } },
            after: { name: 'n', password: 'new', tags: ['a', 'other-tag'], nested: { key: 'k', token: 'u' } },
            before_sensitive: { password: true, tags: [false, true], nested: { token: true } },
            after_sensitive: { password: true, tags: [false, true], nested: { token: true } },
            after_unknown: {},
          },
        },
      ],
      output_changes: {
        out: { actions: ['create'], before: null, after: 'sensitive-out', before_sensitive: false, after_sensitive: true },
      },
      resource_drift: [],
    };
    const schemas = { format_version: '1.0', provider_schemas: { 'registry.terraform.io/hashicorp/x': { resource_schemas: {} } } };
    const redacted = redactedPlan(plan, schemas);
    expect(Object.keys(redacted)).toEqual([
      'plan_format_version',
      'output_changes',
      'resource_changes',
      'provider_format_version',
      'provider_schemas',
    ]);
    expect(redacted.provider_schemas).toEqual(schemas.provider_schemas);
    const change = (redacted.resource_changes as { change: Record<string, unknown> }[])[0]!.change;
    expect(change.before).toEqual({ name: 'n', password: null, tags: ['a', null], nested: { key: 'k', token: null } });
    expect(change.after).toEqual({ name: 'n', password: null, tags: ['a', null], nested: { key: 'k', token: null } });
    expect(change.after_sensitive).toEqual(plan.resource_changes[0]!.change.after_sensitive);
    expect((redacted.output_changes as Record<string, { after: unknown }>).out!.after).toBeNull();
    for (const secret of ['pw', 'old', 'new', 'secret-tag', 'other-tag', '"t"', '"u"', 'sensitive-out'])
      expect(JSON.stringify(redacted)).not.toContain(secret);
  });
});

describe('the change summary line', () => {
  it('words each operation as the CLI does, imports only when there are some', () => {
    const message = (changes: Parameters<typeof changeSummaryLine>[1]) =>
      (JSON.parse(changeSummaryLine('t', changes)) as { '@message': string })['@message'];
    const counts = { add: 1, change: 2, import: 0, remove: 3 };
    expect(message({ ...counts, operation: 'plan' })).toBe('Plan: 1 to add, 2 to change, 3 to destroy.');
    expect(message({ ...counts, import: 4, operation: 'plan' })).toBe('Plan: 4 to import, 1 to add, 2 to change, 3 to destroy.');
    expect(message({ ...counts, operation: 'apply' })).toBe('Apply complete! Resources: 1 added, 2 changed, 3 destroyed.');
    expect(message({ ...counts, import: 4, operation: 'apply' })).toBe(
      'Apply complete! Resources: 4 imported, 1 added, 2 changed, 3 destroyed.',
    );
    expect(message({ ...counts, operation: 'destroy' })).toBe('Destroy complete! Resources: 3 destroyed.');
  });
});
