import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { TestServer } from '../../helpers/app.js';
import { v1, type Reply } from '../core/client.js';

/** openssl on PATH; tests that need it skip locally with a reason and fail under CI. */
export const hasOpenssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;
export const opensslMissing = 'openssl is not on PATH';
if (!hasOpenssl && !process.env.CI) console.warn(`skipping the openssl checks: ${opensslMissing}`);

export function requireOpenssl(): void {
  if (!hasOpenssl) throw new Error(`CI is set but ${opensslMissing}`);
}

/** A scratch directory for PEM files handed to openssl. */
export function scratch(): { path(name: string, content?: string): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-pki-'));
  return {
    path(name, content) {
      const file = join(dir, name);
      if (content !== undefined) writeFileSync(file, content.endsWith('\n') ? content : `${content}\n`);
      return file;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Runs openssl; returns status and combined output (failures are results, not exceptions). */
export function openssl(args: string[], input?: string): { status: number; output: string } {
  const run = spawnSync('openssl', args, { input, encoding: 'utf8' });
  return { status: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
}

export function x509Text(pem: string): string {
  return execFileSync('openssl', ['x509', '-noout', '-text'], { input: pem, encoding: 'utf8' });
}

/** A request that must succeed; fails the test with the body otherwise. */
export async function ok(server: TestServer, method: string, path: string, body?: unknown): Promise<Reply> {
  const reply = await v1(server, method, path, body === undefined ? {} : { body });
  expect(reply.status, `${method} ${path}: ${reply.text}`).toBeLessThan(300);
  return reply;
}

/** Mounts a fresh PKI engine at `path` with a long max TTL (roots usually outlive 768h). */
export async function mountPki(server: TestServer, path: string): Promise<void> {
  await ok(server, 'POST', `sys/mounts/${path}`, { type: 'pki', config: { max_lease_ttl: '87600h' } });
}

export async function generateRoot(server: TestServer, mount: string, body: Record<string, unknown>) {
  return (await ok(server, 'POST', `${mount}/root/generate/internal`, { ttl: '8760h', ...body })).body.data as Record<string, string>;
}
