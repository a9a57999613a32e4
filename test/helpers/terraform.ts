import { execFile, execFileSync, spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_TOKEN } from './app.js';

/** The terraform CLI's version, or null when it is not installed. */
export function terraformVersion(): string | null {
  try {
    const output = execFileSync('terraform', ['version', '-json'], { encoding: 'utf8', env: { ...process.env, CHECKPOINT_DISABLE: '1' } });
    return (JSON.parse(output) as { terraform_version: string }).terraform_version;
  } catch {
    return null;
  }
}

/** Null when the CLI is there; a skip (printed) outside CI, a failure in CI, when it is not. */
export function requireTerraform(what: string): string | null {
  const version = terraformVersion();
  if (version === null) {
    if (process.env.CI) throw new Error(`the terraform CLI is required in CI (${what})`);
    console.warn(`skipping ${what}: \`terraform\` is not installed on this machine`);
  }
  return version;
}

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Writes the CLI config pointing `understudy.test` at the server: plain http needs a `host`
 * block, because service discovery is always https.
 */
function cliEnvironment(directory: string, baseUrl: string, token: string, extraConfig = ''): NodeJS.ProcessEnv {
  writeFileSync(
    join(directory, 'understudy.tfrc'),
    `host "understudy.test" {\n  services = { "tfe.v2" = "${baseUrl}/api/v2/", "state.v2" = "${baseUrl}/api/v2/" }\n}\n` +
      `credentials "understudy.test" {\n  token = "${token}"\n}\n` +
      extraConfig,
  );
  return { ...process.env, TF_CLI_CONFIG_FILE: join(directory, 'understudy.tfrc'), CHECKPOINT_DISABLE: '1', TF_IN_AUTOMATION: '1' };
}

/** Runs the CLI in `directory` with `env` to completion; the exit status is null when it was killed. */
function runTerraform(directory: string, env: NodeJS.ProcessEnv, args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile('terraform', [...args, '-no-color'], { cwd: directory, env, timeout: 90_000 }, (error, stdout, stderr) => {
      done({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

/**
 * Runs the CLI against an HTTPS server found by service discovery: its config is `cli.tfrc` in
 * `directory` (the test writes it, with only a credentials block), and it trusts the local CA
 * through `SSL_CERT_FILE`, as the banner tells a user to.
 */
export function terraformOverTls(directory: string, certFile: string | undefined, ...args: string[]): Promise<Run> {
  const env = {
    ...process.env,
    TF_CLI_CONFIG_FILE: join(directory, 'cli.tfrc'),
    SSL_CERT_FILE: certFile,
    CHECKPOINT_DISABLE: '1',
    TF_IN_AUTOMATION: '1',
  };
  return runTerraform(directory, env, args);
}

/** Runs the CLI to completion. Asynchronous on purpose: the server runs in this process and must keep answering. */
export function terraform(directory: string, baseUrl: string, ...args: string[]): Promise<Run> {
  return terraformWithConfig('', directory, baseUrl, ...args);
}

/** As `terraform`, with more CLI configuration (a `provider_installation` block, say) after the host and credentials. */
export function terraformWithConfig(extraConfig: string, directory: string, baseUrl: string, ...args: string[]): Promise<Run> {
  return runTerraform(directory, cliEnvironment(directory, baseUrl, ADMIN_TOKEN, extraConfig), args);
}

/** Starts the CLI without waiting (to interrupt it). */
export function startTerraform(directory: string, baseUrl: string, ...args: string[]): ChildProcess {
  return spawn('terraform', [...args, '-no-color'], {
    cwd: directory,
    env: cliEnvironment(directory, baseUrl, ADMIN_TOKEN),
    stdio: 'ignore',
  });
}

/** Starts the CLI with its stdin and stdout as pipes: the test reads what it prints and answers its questions. */
export function startTerraformPiped(directory: string, baseUrl: string, ...args: string[]): ChildProcessWithoutNullStreams {
  return spawn('terraform', [...args, '-no-color'], {
    cwd: directory,
    env: cliEnvironment(directory, baseUrl, ADMIN_TOKEN),
    stdio: 'pipe',
  });
}
