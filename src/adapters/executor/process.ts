import { spawn } from 'node:child_process';
import type { LogSink } from './executor.js';
import type { RunUser } from './run-user.js';

export interface ProcessResult {
  /** Exit code; null when the process could not start or died of a signal. */
  code: number | null;
  /** Why it could not start (missing binary, permissions). */
  startError?: string;
  canceled: boolean;
  /** Stdout when captured instead of streamed. */
  stdout: string;
}

export interface ProcessOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** Milliseconds between the interrupt and the kill when canceled. */
  graceMs: number;
  /** Streams stdout and stderr here, whole lines at a time; when absent stdout is captured. */
  log?: LogSink;
  /** Runs the command as this user (its own groups only); absent or null: the server's user. */
  user?: RunUser | null;
}

/**
 * Runs one command to completion. Cancellation sends SIGINT (terraform stops cleanly and keeps
 * its state consistent), then SIGKILL once the grace period has passed.
 */
export function runProcess(binary: string, args: string[], options: ProcessOptions): Promise<ProcessResult> {
  return new Promise((resolve) => {
    if (options.signal.aborted) return resolve({ code: null, canceled: true, stdout: '' });
    const identity = options.user ? { uid: options.user.uid, gid: options.user.gid } : {};
    // With a uid, Node (libuv) also drops the supplementary groups root had.
    const child = spawn(binary, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], ...identity });
    let stdout = '';
    let canceled = false;
    let killTimer: NodeJS.Timeout | undefined;
    const pending = { out: '', err: '' };
    const emit = (stream: 'out' | 'err', chunk: string, flush = false) => {
      const text = pending[stream] + chunk;
      const cut = flush ? text.length : text.lastIndexOf('\n') + 1;
      pending[stream] = text.slice(cut);
      if (cut > 0) options.log?.(text.slice(0, cut));
    };
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (options.log) emit('out', chunk);
      else stdout += chunk;
    });
    child.stderr.on('data', (chunk: string) => emit('err', chunk));
    const onAbort = () => {
      canceled = true;
      child.kill('SIGINT');
      killTimer = setTimeout(() => child.kill('SIGKILL'), options.graceMs);
      killTimer.unref();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    let startError: string | undefined;
    child.on('error', (error) => {
      startError = error.message;
    });
    child.on('close', (code) => {
      options.signal.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
      emit('out', '', true);
      emit('err', '', true);
      resolve({ code: startError ? null : code, canceled, stdout, ...(startError ? { startError } : {}) });
    });
  });
}
