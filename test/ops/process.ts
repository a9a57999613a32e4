/**
 * Runs understudy the way users do — as a separate process — for the tests of start-up,
 * configuration and shutdown. Every process started here is stopped by the test that started it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const MAIN = join(ROOT, 'dist', 'main.js');
export const DEFAULT_SEED = join(ROOT, 'fixtures', 'default.json');
const TIMEOUT_MS = 20_000;

/** A fresh temporary directory. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'understudy-ops-'));
}

/** The test's environment without any UNDERSTUDY_* a developer exported, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('UNDERSTUDY_') && name !== 'VAULT_DEV_ROOT_TOKEN_ID') env[name] = value;
  }
  return { ...env, ...extra };
}

export interface Banner {
  readyLine: string;
  /** `export NAME=value` lines, by NAME. */
  exports: Record<string, string>;
}

export function parseBanner(stdout: string): Banner {
  const readyLine = stdout.split('\n').find((line) => line.startsWith('understudy ')) ?? '';
  const exports: Record<string, string> = {};
  for (const match of stdout.matchAll(/^export ([A-Z_]+)=(.*)$/gm)) exports[match[1] as string] = match[2] as string;
  return { readyLine, exports };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  banner: Banner;
  stdout(): string;
  stderr(): string;
  /** Sends `signal` (to the whole process group when started detached) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

interface SpawnOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Own process group, so a signal reaches npm and the server it started, as a terminal's would. */
  detached?: boolean;
}

function launch(command: string, args: string[], options: SpawnOptions) {
  const child = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: cleanEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // 'close' waits for stdio too, so every process holding the pipes (npm's child) is gone by then.
  const closed = new Promise<Exit>((done) => child.once('close', (code, signal) => done({ code, signal, stdout, stderr })));
  return { child, closed, stdout: () => stdout, stderr: () => stderr };
}

/** Runs `node dist/main.js` (or `command`) to completion; for start-ups that are meant to fail. */
export async function runToExit(options: SpawnOptions & { command?: string[] } = {}): Promise<Exit> {
  const [command, ...args] = options.command ?? [process.execPath, MAIN];
  const run = launch(command as string, args, options);
  const timer = setTimeout(() => run.child.kill('SIGKILL'), TIMEOUT_MS);
  try {
    return await run.closed;
  } finally {
    clearTimeout(timer);
  }
}

/** Starts understudy and resolves once the whole banner is out (the server is then listening). */
export async function startProcess(options: SpawnOptions & { command?: string[] } = {}): Promise<Running> {
  const [command, ...args] = options.command ?? [process.execPath, MAIN];
  const run = launch(command as string, args, options);
  const signal = (name: NodeJS.Signals) => {
    if (run.child.pid === undefined) return;
    try {
      if (options.detached) process.kill(-run.child.pid, name);
      else run.child.kill(name);
    } catch {
      // Already gone.
    }
  };
  const stop = async (name: NodeJS.Signals = 'SIGTERM') => {
    signal(name);
    const timer = setTimeout(() => signal('SIGKILL'), TIMEOUT_MS);
    try {
      return await run.closed;
    } finally {
      clearTimeout(timer);
    }
  };

  // The banner's last line on stdout (its own event), unless the process ends first; the timer only bounds the wait.
  const printed = await new Promise<boolean>((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      run.child.stdout?.off('data', look);
      resolve(ok);
    };
    const look = () => {
      if (/^export VAULT_TOKEN=.*\n/m.test(run.stdout())) done(true);
    };
    const timer = setTimeout(() => done(false), TIMEOUT_MS);
    run.child.stdout?.on('data', look);
    void run.closed.then(() => done(false));
    look();
  });
  if (!printed) {
    const exit = await stop('SIGKILL');
    throw new Error(`understudy did not print its banner (exit ${exit.code}):\n${exit.stdout}\n${exit.stderr}`);
  }
  return { child: run.child, banner: parseBanner(run.stdout()), stdout: run.stdout, stderr: run.stderr, stop };
}
