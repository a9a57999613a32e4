/**
 * Child processes for the bench: the baseline server and understudy itself, each started the way
 * a user starts it, on loopback, and always stopped (a leftover server would skew the next run).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processCpuUs } from './rounds.js';
import type { BenchTarget } from './scenario.js';

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const READY_TIMEOUT_MS = 30_000;

const running = new Set<ChildProcess>();

/** The build servers start from unless a caller names one: `dist/` of this checkout (see `useBuild`). */
let defaultMainJs = join(ROOT, 'dist', 'main.js');

/**
 * Servers started from now on without a build of their own run `<dist>/main.js`: for comparing
 * two builds on rows whose servers a scenario starts itself (bench/compare-runs.ts).
 */
export function useBuild(dist: string): void {
  defaultMainJs = join(resolve(dist), 'main.js');
}

/** Kills every child still running; called on the way out, whatever the way out is. */
export function killAll(): void {
  for (const child of running) signal(child, 'SIGKILL');
  running.clear();
}

export interface Child {
  process: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  stop(): Promise<void>;
}

/** Signals the child's whole process group: `npm start` runs the server as a grandchild. */
function signal(child: ChildProcess, name: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, name);
  } catch {
    child.kill(name);
  }
}

function start(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Child {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  running.add(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  // Kept only to explain a failed start; a busy server's warnings must not fill memory.
  child.stderr?.on('data', (chunk: Buffer) => (err = (err + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.once('exit', (code) => {
    running.delete(child);
    if (code !== 0 && code !== null) process.stderr.write(`bench: ${command} ${args.join(' ')} exited with ${code}\n${err}`);
  });
  return {
    process: child,
    stdout: () => out,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) signal(child, 'SIGTERM');
      await exited;
    },
  };
}

/** Resolves with the first match of `pattern` in the child's stdout; rejects if it exits or stalls. */
function waitForOutput(child: Child, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((done, fail) => {
    const timer = setTimeout(() => finish(new Error(`no ${pattern} within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    const check = () => {
      const match = pattern.exec(child.stdout());
      if (match) finish(null, match);
    };
    const exited = () => finish(new Error(`exited before printing ${pattern}`));
    function finish(error: Error | null, match?: RegExpMatchArray) {
      clearTimeout(timer);
      child.process.stdout?.off('data', check);
      child.process.off('exit', exited);
      if (error) fail(error);
      else done(match as RegExpMatchArray);
    }
    child.process.stdout?.on('data', check);
    child.process.once('exit', exited);
    check();
  });
}

/**
 * The shipped seed with API rate limiting off, as the README advises for speed: the bench sends
 * thousands of requests a second with one token. The limiter's own row turns it on with a PATCH.
 */
function unlimitedSeed(): string {
  const seed = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'default.json'), 'utf8')) as Record<string, unknown>;
  seed['admin-settings'] = { general: { 'api-rate-limiting-enabled': false } };
  const path = join(mkdtempSync(join(tmpdir(), 'understudy-bench-seed-')), 'seed.json');
  writeFileSync(path, JSON.stringify(seed));
  return path;
}

/** The environment understudy gets: the caller's, minus any UNDERSTUDY_* a developer exported. */
/**
 * What Node does before any script when set, in every process alike: with NODE_EXTRA_CA_CERTS
 * naming the system bundle (as on the bench's CI machines) Node parses some 150 certificates at
 * start, about three quarters of a bare server's start-up instructions (callgrind: 527 M against
 * 116 M without) and a fixed cost that would flatter every ratio to it. Timed start-ups leave it
 * out, as on most laptops and CI runners.
 */
export const START_NOISE = ['NODE_EXTRA_CA_CERTS'];

function understudyEnv(overrides: Record<string, string>, leftOut: readonly string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('UNDERSTUDY_') && name !== 'VAULT_DEV_ROOT_TOKEN_ID' && !leftOut.includes(name)) env[name] = value;
  }
  return {
    ...env,
    UNDERSTUDY_STORE: ':memory:',
    UNDERSTUDY_LOG_LEVEL: 'warn',
    UNDERSTUDY_SEED: unlimitedSeed(),
    ...overrides,
  };
}

/**
 * Runs `node dist/main.js` from an empty directory, so a developer's `.env` in the checkout does
 * not change what is measured.
 */
function startUnderstudyProcess(
  port: number,
  how: StartCommand = 'node',
  overrides: Record<string, string> = {},
  mainJs = defaultMainJs,
  leftOut: readonly string[] = [],
): { child: Child; cleanup: () => void } {
  const cwd = mkdtempSync(join(tmpdir(), 'understudy-bench-'));
  const env = understudyEnv({ ...overrides, UNDERSTUDY_PORT: String(port) }, leftOut);
  // `npm start` must run in the checkout (it reads package.json there); --prefix does that from the empty directory.
  const child =
    how === 'node'
      ? start(process.execPath, [mainJs], { cwd, env })
      : how === 'bare'
        ? start(process.execPath, ['-e', BARE_SERVER], { cwd, env })
        : start('npm', ['start', '--silent', '--prefix', ROOT], { cwd, env });
  return { child, cleanup: () => rmSync(cwd, { recursive: true, force: true }) };
}

/**
 * `node dist/main.js`, `npm start` as a user types it (npm's own start-up included), or `bare`: a
 * Node HTTP server of a few lines, the floor any Node service's spawn-to-ready stands on.
 */
export type StartCommand = 'node' | 'npm' | 'bare';

/** The bare server: node:http answering 200 to everything on the port it is given. */
const BARE_SERVER = "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.UNDERSTUDY_PORT), '127.0.0.1');";

export interface Understudy {
  target: BenchTarget;
  /** The server's process id (`node dist/main.js` runs it directly), for memory readings. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * Starts understudy on a free port (with `overrides` of its environment; from another build's
 * `main.js` when given) and reads address and tokens from its banner.
 */
export async function startUnderstudy(overrides: Record<string, string> = {}, mainJs?: string): Promise<Understudy> {
  const { child, cleanup } = startUnderstudyProcess(0, 'node', overrides, mainJs);
  const stop = async () => {
    await child.stop();
    cleanup();
  };
  try {
    await waitForOutput(child, /^export VAULT_TOKEN=.*\n/m);
  } catch (error) {
    await stop();
    throw error;
  }
  const banner = child.stdout();
  const value = (name: string) => new RegExp(`^export ${name}=(.*)$`, 'm').exec(banner)?.[1] ?? '';
  return {
    target: { baseUrl: value('TFE_ADDRESS'), adminToken: value('TFE_TOKEN'), rootToken: value('VAULT_TOKEN') },
    pid: child.process.pid,
    stop,
  };
}

/** Starts the baseline server and returns its base URL. */
export async function startBaseline(): Promise<{ baseUrl: string; pid: number | undefined; stop(): Promise<void> }> {
  const child = start(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'baseline.ts')], { cwd: ROOT, env: process.env });
  try {
    const match = await waitForOutput(child, /^ready (\d+)$/m);
    return { baseUrl: `http://127.0.0.1:${match[1]}`, pid: child.process.pid, stop: () => child.stop() };
  } catch (error) {
    await child.stop();
    throw error;
  }
}

/** A port that was free a moment ago (the start-up measurement must know it before the banner). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/**
 * Milliseconds from spawning `node dist/main.js` (or `npm start`, or the bare server) to the first 200 from /_emulator/health: what a
 * CI job waiting on the service actually waits.
 */
export async function measureStartup(how: StartCommand): Promise<number> {
  return (await timeStartup(how)).ms;
}

/** One start-up: spawn to the first 200 (ms), and the CPU the spawned process had used by then (ms; 10 ms ticks). */
export interface StartupTiming {
  ms: number;
  cpuMs: number | null;
}

/** `measureStartup` of a given build's `main.js`, with the process's CPU at ready. */
export async function timeStartup(how: StartCommand, mainJs?: string): Promise<StartupTiming> {
  const port = await freePort();
  const started = performance.now();
  const { child, cleanup } = startUnderstudyProcess(port, how, {}, mainJs, START_NOISE);
  try {
    while (performance.now() - started < READY_TIMEOUT_MS) {
      if (child.process.exitCode !== null) throw new Error('understudy exited during start-up');
      const ok = await fetch(`http://127.0.0.1:${port}/_emulator/health`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ok) {
        const ms = performance.now() - started;
        const cpuUs = processCpuUs(child.process.pid);
        return { ms, cpuMs: cpuUs === null ? null : cpuUs / 1000 };
      }
      await new Promise((wake) => setTimeout(wake, 5));
    }
    throw new Error(`understudy was not ready within ${READY_TIMEOUT_MS} ms`);
  } finally {
    await child.stop();
    cleanup();
  }
}
