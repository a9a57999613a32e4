import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';
import { ok } from '../pki/support.js';

/**
 * Malformed input against every transit path, for keys of each family: nothing may answer 5xx,
 * and a failed request leaves the key as it was.
 */
const KEYS = { aes: 'aes256-gcm96', rsa: 'rsa-2048', ec: 'ecdsa-p256', ed: 'ed25519', mac: 'hmac', der: 'chacha20-poly1305' };

const PATHS = (name: string) => [
  `transit/keys/${name}`,
  `transit/keys/${name}/config`,
  `transit/keys/${name}/trim`,
  `transit/encrypt/${name}`,
  `transit/decrypt/${name}`,
  `transit/rewrap/${name}`,
  `transit/datakey/plaintext/${name}`,
  `transit/datakey/wrapped/${name}`,
  `transit/sign/${name}`,
  `transit/sign/${name}/sha2-256`,
  `transit/verify/${name}`,
  `transit/hmac/${name}`,
  `transit/export/encryption-key/${name}`,
  `transit/export/signing-key/${name}/latest`,
  `transit/export/hmac-key/${name}/x`,
  `transit/export/public-key/${name}`,
  `transit/backup/${name}`,
  `transit/restore/${name}`,
];

const BODIES = [
  '{}',
  '[]',
  'null',
  '{"plaintext":5,"ciphertext":[1],"context":{},"nonce":true}',
  '{"plaintext":"@@","ciphertext":"vault:v1:@@","context":"@@","associated_data":"@@","input":"@@","signature":"vault:v1:@@"}',
  '{"batch_input":"x"}',
  '{"batch_input":[1,null]}',
  '{"batch_input":[{"plaintext":1,"ciphertext":{},"key_version":"x","reference":[]}]}',
  '{"batch_input":[{"input":"QQ==","signature":"vault:v1:QQ=="},{"input":"QQ==","hmac":"vault:v1:QQ=="}]}',
  '{"batch_input":[{"ciphertext":"vault:v1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}],"partial_failure_response_code":99999}',
  '{"key_version":1e308,"bits":-1,"min_available_version":"x","min_decryption_version":-5,"min_encryption_version":1e308}',
  '{"auto_rotate_period":"abc","exportable":"maybe","deletion_allowed":[],"type":{}}',
  '{"input":"QQ==","signature":"vault:v1:QQ==","prehashed":true,"hash_algorithm":"none","salt_length":"9999"}',
  '{"input":"QQ==","signature":"vault:v99999999999999999999:QQ==","marshaling_algorithm":"jws","signature_algorithm":"x"}',
  '{"input":"QQ==","prehashed":true,"signature_algorithm":"pss","salt_length":"-1"}',
  '{"backup":"e30=","force":"x"}',
  '{"backup":"bm90IGpzb24="}',
  '{"plaintext":"QQ==","key_version":-3,"context":"QQ=="}',
];

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
  await ok(server, 'POST', 'sys/mounts/transit', { type: 'transit' });
  for (const [name, type] of Object.entries(KEYS)) {
    await ok(server, 'POST', `transit/keys/${name}`, { type, derived: name === 'der', exportable: true });
  }
});
afterAll(() => server.close());

describe('transit under malformed input', () => {
  it('never answers 5xx and changes no key on a failed request', async () => {
    const before = await Promise.all(Object.keys(KEYS).map(async (name) => (await ok(server, 'GET', `transit/keys/${name}`)).body.data));
    const failures: string[] = [];
    const extra = [
      'transit/keys',
      'transit/hash',
      'transit/hash/x',
      'transit/random',
      'transit/random/x',
      'transit/random/all/-1',
      'transit/restore',
    ];
    for (const path of [...Object.keys(KEYS).flatMap(PATHS), ...PATHS('none'), ...extra]) {
      for (const method of ['GET', 'POST', 'DELETE']) {
        for (const body of method === 'POST' ? BODIES : [undefined]) {
          const reply = await v1(server, method, path, body === undefined ? {} : { body });
          if (reply.status >= 500) failures.push(`${method} ${path} ${body} -> ${reply.status} ${reply.text.slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    const after = await Promise.all(Object.keys(KEYS).map(async (name) => (await ok(server, 'GET', `transit/keys/${name}`)).body.data));
    // Deletion is not allowed on these keys, so every DELETE failed; nothing else may have changed them.
    expect(after.map((key) => key.latest_version)).toEqual(before.map((key) => key.latest_version));
  }, 120_000);
});
