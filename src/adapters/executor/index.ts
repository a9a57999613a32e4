import { execFile } from 'node:child_process';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.js';
import type { Executor } from './executor.js';
import { SimulatedExecutor } from './simulated.js';
import { resolveRunUser, RunUserError, type RunUser } from './run-user.js';
import { TerraformExecutor } from './terraform.js';

export * from './executor.js';
export type { RunUser } from './run-user.js';

/** The version a simulated run reports when no CLI is there to ask. */
export const SIMULATED_VERSION = '1.11.4';

/** `terraform version -json` of `binary`, or null when it cannot be run. */
export function probeTerraform(binary: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(binary, ['version', '-json'], { timeout: 20_000, env: { ...process.env, CHECKPOINT_DISABLE: '1' } }, (error, stdout) => {
      if (error) return resolve(null);
      try {
        resolve((JSON.parse(stdout) as { terraform_version?: string }).terraform_version ?? null);
      } catch {
        resolve(null);
      }
    });
  });
}

/**
 * Picks the executor `UNDERSTUDY_EXECUTOR` asks for. `auto` takes the CLI when it answers and
 * falls back to the simulation, saying so once; `terraform` keeps the CLI even when it is missing,
 * so each run errors with a readable log line rather than silently simulating.
 */
export async function createExecutor(config: Config, log: FastifyBaseLogger): Promise<Executor> {
  if (config.executor === 'simulated') return new SimulatedExecutor({ version: SIMULATED_VERSION });
  const binary = config.terraformBin ?? 'terraform';
  const version = await probeTerraform(binary);
  if (version === null && config.executor === 'auto') {
    log.info({ binary }, 'no terraform CLI found: runs use the simulated executor (set UNDERSTUDY_TERRAFORM_BIN to use a real one)');
    return new SimulatedExecutor({ version: SIMULATED_VERSION });
  }
  let runUser: RunUser | null;
  try {
    runUser = resolveRunUser(config);
  } catch (error) {
    // main.ts refuses to start with UNDERSTUDY_EXECUTOR=terraform; auto falls back, saying why.
    if (!(error instanceof RunUserError) || config.executor !== 'auto') throw error;
    log.warn(`runs use the simulated executor: ${error.message}`);
    return new SimulatedExecutor({ version: SIMULATED_VERSION });
  }
  if (runUser === null && process.getuid?.() === 0)
    log.warn('UNDERSTUDY_RUN_AS_ROOT=true: runs (and what a configuration runs) act as root');
  if (version === null) log.warn({ binary }, 'UNDERSTUDY_EXECUTOR=terraform but the CLI does not answer: runs will error');
  return new TerraformExecutor({ binary, pluginDir: config.tfPluginDir, version: version ?? 'unknown', runUser });
}
