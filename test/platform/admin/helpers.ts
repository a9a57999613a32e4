import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { platform, type TestServer } from '../../helpers/app.js';

/** A PATCH of one settings document with the body real clients send (`"type": ""`). */
export function patchSettings(server: TestServer, address: string, attributes: Record<string, unknown>, token?: string) {
  return platform(server, 'PATCH', `/admin/${address}`, { body: { data: { type: '', attributes } }, ...(token ? { token } : {}) });
}

/** A fresh self-signed certificate in PEM, made by openssl (what an identity provider hands out). */
export function selfSignedCertificate(commonName: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-saml-'));
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      `/CN=${commonName}`,
    ],
    { stdio: 'ignore' },
  );
  return readFileSync(cert, 'utf8');
}

export async function outbox(
  server: TestServer,
): Promise<{ kind: string; 'delivered-via': string; from: string; to: string; subject: string | null; body: string }[]> {
  const response = await fetch(`${server.baseUrl}/_emulator/outbox`);
  return ((await response.json()) as { messages: never[] }).messages;
}
