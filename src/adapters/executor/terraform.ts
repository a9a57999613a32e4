import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  NO_CHANGES,
  NO_EXTRAS,
  redactingSink,
  withExtras,
  type ApplyOutcome,
  type ChangeSummary,
  type Executor,
  type LogSink,
  type PlanJob,
  type PhaseExtras,
  type PlanOutcome,
  type RunVariable,
} from './executor.js';
import { runProcess, type ProcessResult } from './process.js';
import { handOver, makeRunDirectory, type RunUser } from './run-user.js';
import { SlugRejected, unpackSlug } from './slug.js';
import { summarisePlan } from './plan-json.js';
import { redactedPlan } from './structured.js';

export interface TerraformExecutorOptions {
  /** The CLI to run (`UNDERSTUDY_TERRAFORM_BIN`, else `terraform` on PATH). */
  binary: string;
  /** A provider directory used instead of any download (`UNDERSTUDY_TF_PLUGIN_DIR`); null: the CLI's own settings. */
  pluginDir: string | null;
  /** The CLI's version, for the log header the platform's logs start with. */
  version: string;
  /** Milliseconds between the interrupt and the kill on cancel. */
  graceMs?: number;
  /** Who the CLI runs as (run-user.ts); absent or null: the server's own user. */
  runUser?: RunUser | null;
}

/** Environment variables passed through from the server's own: the CLI's settings, never the server's secrets. */
const PASSED_THROUGH = new RegExp(
  '^(PATH|HOME|TMPDIR|LANG|LC_[A-Z]+|TZ|SSL_CERT_FILE|SSL_CERT_DIR|HTTPS?_PROXY|NO_PROXY|https?_proxy|no_proxy|' +
    'TF_CLI_CONFIG_FILE|TF_PLUGIN_CACHE_DIR|TF_PLUGIN_CACHE_MAY_BREAK_DEPENDENCY_LOCK_FILE|TF_REGISTRY_[A-Z_]+)$',
);

/** Where a backend or cloud block in the uploaded configuration is replaced by local state in the working directory. */
const BACKEND_OVERRIDE = 'terraform {\n  backend "local" {}\n}\n';
const OVERRIDE_FILE = 'zzz_understudy_backend_override.tf';
const VARIABLES_FILE = 'zzz_understudy.auto.tfvars';
const PLAN_FILE = 'understudy.tfplan';

/** An HCL string literal: JSON escaping plus HCL's own template markers. */
const hclString = (value: string) =>
  JSON.stringify(value)
    .replace(/\$\{/g, () => '$${')
    .replace(/%\{/g, () => '%%{');

export function variablesFile(variables: RunVariable[]): string {
  return variables.map((variable) => `${variable.key} = ${variable.hcl ? variable.value : hclString(variable.value)}\n`).join('');
}

function header(version: string): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return `Terraform v${version}\non ${process.platform}_${arch}\nInitializing plugins and modules...\n`;
}

/** The summary line `terraform apply` prints last: `Apply complete! Resources: 1 added, 0 changed, 0 destroyed.` */
function applySummary(log: string, fallback: ChangeSummary): ChangeSummary {
  const match = /Resources: (?:(\d+) imported, )?(\d+) added, (\d+) changed, (\d+) destroyed/.exec(log);
  if (!match) return fallback;
  return { imports: Number(match[1] ?? 0), additions: Number(match[2]), changes: Number(match[3]), destructions: Number(match[4]) };
}

/**
 * Runs each plan with the real CLI in its own temporary directory: the slug, the workspace's state
 * as a local state file (the configuration's cloud or backend block overridden), the variables as
 * an auto-loaded tfvars file. `init -input=false`, `plan -out`, `show -json`, and on confirm the
 * apply of that very plan file. The directory is removed when the run ends or on `close()`.
 */
export class TerraformExecutor implements Executor {
  readonly kind = 'terraform' as const;
  get runUser(): RunUser | null {
    return this.options.runUser ?? null;
  }
  private readonly directories = new Set<string>();
  private readonly graceMs: number;

  constructor(private readonly options: TerraformExecutorOptions) {
    this.graceMs = options.graceMs ?? 10_000;
  }

  /** Working directories of runs still between plan and the end of their apply. */
  get activeDirectories(): number {
    return this.directories.size;
  }

  /** A phase's process environment: the job's, then that phase's extras (replacing same keys). */
  private environment(job: PlanJob, extras: PhaseExtras, directory: string): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (PASSED_THROUGH.test(key)) env[key] = value;
    // A CLI config named but missing only earns a warning in every run's log.
    if (env.TF_CLI_CONFIG_FILE && !existsSync(env.TF_CLI_CONFIG_FILE)) delete env.TF_CLI_CONFIG_FILE;
    for (const variable of withExtras(job.environment, extras.environment)) env[variable.key] = variable.value;
    return {
      ...env,
      // Another user's home is not the run's to read; the run's own directory is its home.
      HOME: this.options.runUser ? directory : (env.HOME ?? directory),
      TF_IN_AUTOMATION: '1',
      TF_INPUT: '0',
      CHECKPOINT_DISABLE: '1',
      TFC_RUN_ID: job.runId,
    };
  }

  private async release(directory: string): Promise<void> {
    this.directories.delete(directory);
    await rm(directory, { recursive: true, force: true });
  }

  async plan(job: PlanJob, rawLog: LogSink, signal: AbortSignal, extras: PhaseExtras = NO_EXTRAS): Promise<PlanOutcome> {
    const log = redactingSink(rawLog, secretsOf(job, extras));
    const directory = await makeRunDirectory();
    this.directories.add(directory);
    const failed = async (status: 'errored' | 'canceled', line?: string): Promise<PlanOutcome> => {
      if (line) log(line);
      await this.release(directory);
      return { status, summary: NO_CHANGES, hasChanges: false, json: null };
    };
    log(header(this.options.version));
    try {
      await unpackSlug(job.slug, directory);
    } catch (error) {
      if (error instanceof SlugRejected) return failed('errored', `\nError: ${error.message}\n`);
      throw error;
    }
    await writeFile(join(directory, OVERRIDE_FILE), BACKEND_OVERRIDE);
    const variables = withExtras(job.variables, extras.variables);
    if (variables.length > 0) await writeFile(join(directory, VARIABLES_FILE), variablesFile(variables));
    if (job.state !== null) await writeFile(join(directory, 'terraform.tfstate'), job.state);
    await handOver(directory, this.options.runUser ?? null);
    const env = this.environment(job, extras, directory);
    const run = (args: string[], streamed: LogSink | undefined) =>
      runProcess(this.options.binary, [...args], {
        cwd: directory,
        env,
        signal,
        graceMs: this.graceMs,
        user: this.options.runUser ?? null,
        ...(streamed ? { log: streamed } : {}),
      });
    const problem = (result: ProcessResult, step: string) => {
      if (result.canceled) return failed('canceled', `\n${step} was interrupted: the run was canceled.\n`);
      if (result.startError)
        return failed('errored', `\nError: the terraform CLI (${this.options.binary}) could not be started: ${result.startError}\n`);
      return result.code === 0 ? null : failed('errored', `\nError: ${step} failed (exit status ${result.code}).\n`);
    };

    // init's chatter stays out of the log unless it fails, as on the platform.
    let initOutput = '';
    const init = await run(
      ['init', '-input=false', '-no-color', ...(this.options.pluginDir ? [`-plugin-dir=${this.options.pluginDir}`] : [])],
      (text) => (initOutput += text),
    );
    if (init.code !== 0 && !init.canceled && !init.startError) log(initOutput);
    const initProblem = problem(init, 'terraform init');
    if (initProblem) return initProblem;

    // Everything from `Saved the plan to:` on is advice for a local user, not part of a run's log.
    let hiding = false;
    const planLog: LogSink = (text) => {
      const shown = text
        .split(/(?<=\n)/)
        .filter((line) => !(hiding ||= line.startsWith('Saved the plan to:')))
        .join('');
      if (shown) log(shown);
    };
    // Structured run output: the machine-readable UI's lines (`-json`), which never print the saved plan's advice.
    const output = job.structured ? '-json' : '-no-color';
    const plan = await run(['plan', '-input=false', output, `-out=${PLAN_FILE}`, ...planFlags(job)], planLog);
    const planProblem = problem(plan, 'terraform plan');
    if (planProblem) return planProblem;

    const show = await run(['show', '-json', '-no-color', PLAN_FILE], undefined);
    const showProblem = problem(show, 'terraform show -json');
    if (showProblem) return showProblem;
    let json: unknown;
    try {
      json = JSON.parse(show.stdout);
    } catch {
      return failed('errored', '\nError: terraform show -json printed something that is not JSON.\n');
    }
    // The provider schemas the redacted plan carries, so a client can draw the plan's changes.
    const schemas = await run(['providers', 'schema', '-json'], undefined);
    const schemasProblem = problem(schemas, 'terraform providers schema -json');
    if (schemasProblem) return schemasProblem;
    let schemaJson: unknown;
    try {
      schemaJson = JSON.parse(schemas.stdout);
    } catch {
      return failed('errored', '\nError: terraform providers schema -json printed something that is not JSON.\n');
    }
    const { summary, hasChanges } = summarisePlan(json);
    return {
      status: 'finished',
      summary,
      hasChanges,
      json,
      redactedJson: redactedPlan(json, schemaJson),
      prepared: {
        apply: async (rawApplyLog, applySignal, applyExtras = NO_EXTRAS): Promise<ApplyOutcome> => {
          const applyLog = redactingSink(rawApplyLog, secretsOf(job, applyExtras));
          applyLog(header(this.options.version));
          // A saved plan keeps its own values; only what the apply phase adds (ephemeral values) is new here.
          if (applyExtras.variables.length > 0)
            await writeFile(join(directory, VARIABLES_FILE), variablesFile(withExtras(job.variables, applyExtras.variables)));
          let text = '';
          const result = await runProcess(this.options.binary, ['apply', '-input=false', output, PLAN_FILE], {
            cwd: directory,
            env: this.environment(job, applyExtras, directory),
            signal: applySignal,
            graceMs: this.graceMs,
            user: this.options.runUser ?? null,
            log: (chunk) => {
              text += chunk;
              applyLog(chunk);
            },
          });
          // Terraform writes the state even after a failed or interrupted apply: what did happen is kept.
          const state = await readFile(join(directory, 'terraform.tfstate'), 'utf8').catch(() => null);
          if (result.startError)
            applyLog(`\nError: the terraform CLI (${this.options.binary}) could not be started: ${result.startError}\n`);
          else if (result.canceled) applyLog('\nterraform apply was interrupted: the run was canceled.\n');
          else if (result.code !== 0) applyLog(`\nError: terraform apply failed (exit status ${result.code}).\n`);
          await this.release(directory);
          const status = result.canceled ? 'canceled' : result.code === 0 ? 'finished' : 'errored';
          return { status, summary: applySummary(text, status === 'finished' ? summary : NO_CHANGES), state };
        },
        dispose: () => this.release(directory),
      },
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.directories].map((directory) => this.release(directory)));
  }
}

/** Values no log may show: sensitive variables of the job and of the phase, and the phase's secrets. */
function secretsOf(job: PlanJob, extras: PhaseExtras): string[] {
  const sensitive = [...job.variables, ...job.environment, ...extras.variables, ...extras.environment].filter(
    (variable) => variable.sensitive,
  );
  return [...sensitive.map((variable) => variable.value), ...extras.secrets];
}

function planFlags(job: PlanJob): string[] {
  return [
    ...(job.isDestroy ? ['-destroy'] : []),
    ...(job.refreshOnly ? ['-refresh-only'] : []),
    ...(job.refresh ? [] : ['-refresh=false']),
    ...job.targetAddrs.map((address) => `-target=${address}`),
    ...job.replaceAddrs.map((address) => `-replace=${address}`),
  ];
}
