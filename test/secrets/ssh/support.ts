import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT_TOKEN, type TestServer } from '../../helpers/app.js';

/** A JSON call to the secrets API as root (or another token); the body parsed. */
export async function vault(server: TestServer, method: string, path: string, body?: unknown, token = ROOT_TOKEN) {
  const response = await fetch(`${server.baseUrl}/v1/${path}`, {
    method,
    headers: { 'x-vault-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
  let parsed: any = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // a raw body (the CA public key) stays text
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** Runs ssh-keygen with UTC times (its validity lines print local time). */
export const sshKeygen = (args: string[], input?: string) =>
  execFileSync('ssh-keygen', args, { encoding: 'utf8', env: { ...process.env, TZ: 'UTC' }, input, stdio: ['pipe', 'pipe', 'pipe'] });

/** A fresh key pair made by ssh-keygen in its own directory: its path and public key text. */
export function userKey(type: 'ed25519' | 'ecdsa' | 'rsa', bits?: number): { dir: string; path: string; publicKey: string } {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-ssh-'));
  const path = join(dir, 'id');
  sshKeygen(['-q', '-t', type, ...(bits ? ['-b', String(bits)] : []), '-N', '', '-C', 'test', '-f', path]);
  return { dir, path, publicKey: readFileSync(`${path}.pub`, 'utf8') };
}

/** `ssh-keygen -L` of a certificate given as text. */
export function describeCertificate(dir: string, signedKey: string): string {
  const path = join(dir, 'id-cert.pub');
  writeFileSync(path, signedKey);
  return sshKeygen(['-L', '-f', path]);
}

/** `ssh-keygen -lf` of a public key text: its SHA256 fingerprint. */
export function fingerprint(dir: string, publicKey: string): string {
  const path = join(dir, 'fingerprint.pub');
  writeFileSync(path, publicKey);
  return sshKeygen(['-l', '-f', path]).split(' ')[1] ?? '';
}
