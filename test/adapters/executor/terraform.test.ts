import { describe, expect, it } from 'vitest';
import type { PlanJob } from '../../../src/adapters/executor/executor.js';
import { TerraformExecutor, variablesFile } from '../../../src/adapters/executor/terraform.js';
import { requireTerraform } from '../../helpers/terraform.js';
import { tarball } from '../../platform/registry/archives.js';
import { planJob } from './plan-job.js';

const version = requireTerraform('the terraform executor tests (plans and applies with the real CLI)');
const live = new AbortController().signal;

/** A configuration with no provider to download, and the cloud block the CLI uploads with it. */
const CONFIG = `
terraform {
  cloud {
    hostname     = "understudy.test"
    organization = "understudy"
    workspaces { name = "w" }
  }
}
variable "who" {
  type = string
}
variable "secret" {
  type      = string
  sensitive = true
}
resource "terraform_data" "item" {
  input = "hello \${var.who}"
}
output "greeting" { value = terraform_data.item.output }
`;

const job = (extra: Partial<PlanJob> = {}) =>
  planJob('run-test', CONFIG, null, {
    variables: [
      { key: 'who', value: 'world', hcl: false, sensitive: false },
      { key: 'secret', value: 'sup3r-s3cret-value', hcl: false, sensitive: true },
    ],
    environment: [{ key: 'TF_LOG_PROVIDER', value: '', hcl: false, sensitive: false }],
    ...extra,
  });

describe('terraform variables file', () => {
  it('quotes strings (escaping template markers) and writes HCL values as they are', () => {
    expect(
      variablesFile([
        { key: 'a', value: 'x "${y}" %{z}', hcl: false, sensitive: false },
        { key: 'b', value: '["p", 2]', hcl: true, sensitive: false },
      ]),
    ).toBe('a = "x \\"$${y}\\" %%{z}"\nb = ["p", 2]\n');
  });
});

describe.skipIf(version === null)('the terraform executor', () => {
  const executor = new TerraformExecutor({ binary: 'terraform', pluginDir: null, version: version ?? '' });

  it('plans (cloud block overridden), shows the plan as JSON, applies that plan file, and returns the state', async () => {
    const log: string[] = [];
    const plan = await executor.plan(await job(), (text) => log.push(text), live);
    expect(log.join('')).not.toContain('Error');
    expect(plan.status).toBe('finished');
    expect(plan.summary).toEqual({ additions: 1, changes: 0, destructions: 0, imports: 0 });
    expect(plan.hasChanges).toBe(true);
    const text = log.join('');
    expect(text.startsWith(`Terraform v${version}\n`)).toBe(true);
    expect(text).toContain('# terraform_data.item will be created');
    expect(text).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
    expect(text).not.toContain('Saved the plan to');
    expect(text).not.toContain('sup3r-s3cret-value');
    expect((plan.json as { resource_changes: { address: string }[] }).resource_changes[0]!.address).toBe('terraform_data.item');

    const applyLog: string[] = [];
    const applied = await plan.prepared!.apply((chunk) => applyLog.push(chunk), live);
    expect(applied.status).toBe('finished');
    expect(applyLog.join('')).toContain('Apply complete! Resources: 1 added, 0 changed, 0 destroyed.');
    const state = JSON.parse(applied.state!);
    expect(state.outputs.greeting.value).toBe('hello world');
    expect(state.serial).toBeGreaterThanOrEqual(1);

    // Planned again against that state: nothing to do.
    const again = await executor.plan(await job({ state: applied.state }), () => undefined, live);
    expect(again.hasChanges).toBe(false);
    await again.prepared!.dispose();
  });

  it("gives each phase its own extras: the plan's environment and variables, then the apply's, secrets hidden", async () => {
    const config = `${CONFIG}
variable "where" {
  type    = string
  default = "nowhere"
}
output "where" { value = var.where }
resource "terraform_data" "echo" {
  provisioner "local-exec" {
    command = "echo phase=$PHASE_VALUE plan_only=[$PLAN_ONLY] token=$PHASE_TOKEN"
  }
}
`;
    const planLog: string[] = [];
    const plan = await executor.plan(
      await job({ slug: await tarball([{ name: 'main.tf', content: config }]) }),
      (text) => planLog.push(text),
      live,
      {
        // TF_VAR_ makes the plan's environment visible in its plan (a provisioner only runs at apply).
        environment: [
          { key: 'TF_VAR_where', value: 'plan-env', hcl: false, sensitive: false },
          { key: 'PLAN_ONLY', value: 'yes', hcl: false, sensitive: false },
        ],
        variables: [{ key: 'who', value: 'hook', hcl: false, sensitive: false }],
        secrets: [],
      },
    );
    expect(plan.status).toBe('finished');
    expect(planLog.join('')).toContain('+ where    = "plan-env"');
    expect(planLog.join('')).toContain('hello hook');

    const applyLog: string[] = [];
    const applied = await plan.prepared!.apply((chunk) => applyLog.push(chunk), live, {
      environment: [
        { key: 'PHASE_VALUE', value: 'apply-env', hcl: false, sensitive: false },
        { key: 'PHASE_TOKEN', value: 'apply-t0ken-value', hcl: false, sensitive: false },
      ],
      variables: [],
      secrets: ['apply-t0ken-value'],
    });
    expect(applied.status).toBe('finished');
    const text = applyLog.join('');
    // The apply phase's environment, not the plan's (its credentials ended with the plan).
    expect(text).toContain('phase=apply-env plan_only=[] token=(sensitive value)');
    expect(text).not.toContain('apply-t0ken-value');
    expect(JSON.parse(applied.state!).outputs.where.value).toBe('plan-env');
  });

  it('errors the plan with a readable log line when the configuration is wrong', async () => {
    const log: string[] = [];
    const plan = await executor.plan(await job({ variables: [] }), (text) => log.push(text), live);
    expect(plan.status).toBe('errored');
    expect(log.join('')).toMatch(/No value for required variable/);
    expect(log.join('')).toContain('terraform plan failed (exit status 1)');
  });

  it('errors with a readable log line when the binary is missing', async () => {
    const missing = new TerraformExecutor({ binary: '/nonexistent/terraform', pluginDir: null, version: 'unknown' });
    const log: string[] = [];
    const plan = await missing.plan(await job(), (text) => log.push(text), live);
    expect(plan.status).toBe('errored');
    expect(log.join('')).toContain('the terraform CLI (/nonexistent/terraform) could not be started');
  });

  it('a canceled plan ends canceled and leaves no working directory behind', async () => {
    const controller = new AbortController();
    const pending = executor.plan(await job(), () => undefined, controller.signal);
    controller.abort();
    const plan = await pending;
    expect(plan.status).toBe('canceled');
    expect(executor.activeDirectories).toBe(0);
  });
});
