import { generateKeyPairSync } from 'node:crypto';
import { addGoals, cost } from '../goals.js';
import type { BenchRequest, BenchTarget, Scenario } from '../scenario.js';

/**
 * Signing a user's SSH public key with an EC (P-256) CA, next to the PKI engine issuing an EC
 * P-256 certificate (the `pki.ts` row): both are one ECDSA signature over an encoded certificate.
 */

const SSH_SIGN = 'POST /v1/ssh/sign/:role (EC CA, ed25519 user key)';
const PKI_EC_ISSUE = 'POST /v1/pki/issue/:role EC P-256';

async function call(target: BenchTarget, method: string, path: string, body?: unknown): Promise<void> {
  const response = await fetch(`${target.baseUrl}/v1/${path}`, {
    method,
    headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
}

/** An ed25519 public key in authorized_keys form, encoded here (the wire format is two length-prefixed strings). */
function userPublicKey(): string {
  const raw = Buffer.from(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x ?? '', 'base64url');
  const field = (value: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, value.length]), value]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} bench@host`;
}

export const scenarios: Scenario[] = [
  {
    name: SSH_SIGN,
    setup: async (target): Promise<BenchRequest> => {
      await call(target, 'POST', 'sys/mounts/bench-ssh', { type: 'ssh' });
      await call(target, 'POST', 'bench-ssh/config/ca', { generate_signing_key: true, key_type: 'ec', key_bits: 256 });
      await call(target, 'POST', 'bench-ssh/roles/dev', {
        key_type: 'ca',
        allow_user_certificates: true,
        allowed_users: '*',
        default_user: 'dev',
        default_extensions: { 'permit-pty': '' },
        ttl: '1h',
      });
      return {
        method: 'POST',
        path: '/v1/bench-ssh/sign/dev',
        headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
        body: JSON.stringify({ public_key: userPublicKey(), valid_principals: 'dev' }),
      };
    },
  },
];

addGoals(cost(`${SSH_SIGN} vs ${PKI_EC_ISSUE}`, SSH_SIGN, PKI_EC_ISSUE, 1.2));
