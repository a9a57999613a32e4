import { constants, createCipheriv, createPrivateKey, createPublicKey, publicEncrypt, randomBytes, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { ok } from '../pki/support.js';

/**
 * Backups in the real engine's layout (the Go structs as JSON: numeric key types, big integers
 * for ECDSA and RSA keys, an archive whose slot 0 is empty), checked against the exported key
 * material, and a backup written here by hand in that layout restored and used on a ciphertext
 * built here with Node's crypto.
 */
let server: TestServer;
const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
const decimal = (base64url: string | undefined) => BigInt(`0x${Buffer.from(base64url ?? '', 'base64url').toString('hex')}`).toString();

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- backup documents are asserted field by field
type Json = Record<string, any>;

async function backupOf(name: string): Promise<{ text: string; json: Json }> {
  const backup = (await ok(server, 'GET', `transit/backup/${name}`)).body.data.backup as string;
  const text = Buffer.from(backup, 'base64').toString('utf8');
  return { text, json: JSON.parse(text.replace(/(:\s*)(\d{16,})/g, '$1"$2"')) as Json };
}

beforeAll(async () => {
  server = await startServer();
  await ok(server, 'POST', 'sys/mounts/transit', { type: 'transit' });
});
afterAll(() => server.close());

describe('transit backups in the real layout', () => {
  it('writes an AES key as the real policy struct with its archive', async () => {
    await ok(server, 'POST', 'transit/keys/aes', { exportable: true, allow_plaintext_backup: true, auto_rotate_period: '2h' });
    await ok(server, 'POST', 'transit/keys/aes/rotate');
    const { json } = await backupOf('aes');
    const exported = (await ok(server, 'GET', 'transit/export/encryption-key/aes')).body.data.keys;
    expect(json.policy).toMatchObject({
      name: 'aes',
      type: 0,
      kdf: 1,
      latest_version: 2,
      archive_version: 2,
      auto_rotate_period: 7_200_000_000_000,
    });
    expect(json.policy.keys['1'].key).toBe(exported['1']);
    expect(json.archived_keys.keys).toHaveLength(3);
    expect(json.archived_keys.keys[0].key).toBeNull();
    expect(json.archived_keys.keys[2].key).toBe(exported['2']);
  });

  it('writes ECDSA keys as big integers, and a restored copy signs for the same public key', async () => {
    await ok(server, 'POST', 'transit/keys/ec', { type: 'ecdsa-p384', exportable: true, allow_plaintext_backup: true });
    const { text, json } = await backupOf('ec');
    const pem = (await ok(server, 'GET', 'transit/export/signing-key/ec/1')).body.data.keys['1'] as string;
    const jwk = createPrivateKey(pem).export({ format: 'jwk' });
    expect(json.policy.type).toBe(6);
    expect(json.policy.keys['1'].ec_d).toBe(decimal(jwk.d));
    expect(text).toMatch(/"ec_x":\d+,/);
    const backup = b64(text);
    await ok(server, 'POST', 'transit/restore/ec-copy', { backup });
    const signature = (await ok(server, 'POST', 'transit/sign/ec-copy', { input: b64('msg'), hash_algorithm: 'sha2-384' })).body.data
      .signature;
    const original = createPublicKey(pem);
    expect(verify('sha384', Buffer.from('msg'), original, Buffer.from((signature as string).slice(9), 'base64'))).toBe(true);
  });

  it('round-trips an RSA key through the Go rsa.PrivateKey layout', async () => {
    await ok(server, 'POST', 'transit/keys/rsa', { type: 'rsa-2048', exportable: true, allow_plaintext_backup: true });
    const { json } = await backupOf('rsa');
    expect(json.policy.type).toBe(3);
    expect(json.policy.keys['1'].rsa_key.E).toBe(65537);
    expect(json.policy.keys['1'].rsa_key.Primes).toHaveLength(2);
    const publicPem = (await ok(server, 'GET', 'transit/keys/rsa')).body.data.keys['1'].public_key as string;
    const backup = (await ok(server, 'GET', 'transit/backup/rsa')).body.data.backup;
    await ok(server, 'POST', 'transit/restore/rsa-copy', { backup });
    const sealed = publicEncrypt({ key: publicPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from('dek'));
    const plaintext = (await ok(server, 'POST', 'transit/decrypt/rsa-copy', { ciphertext: `vault:v1:${b64(sealed)}` })).body.data.plaintext;
    expect(plaintext).toBe(b64('dek'));
  });

  it('restores a backup written in the real layout and opens a ciphertext built here with Node', async () => {
    const key = randomBytes(16);
    const entry = { key: b64(key), hmac_key: b64(randomBytes(32)), time: '2024-05-01T10:00:00.123456789Z', creation_time: 1714557600 };
    const document = {
      policy: {
        name: 'from-real',
        keys: { '1': entry },
        derived: false,
        kdf: 1,
        convergent_encryption: false,
        exportable: false,
        min_decryption_version: 1,
        min_encryption_version: 0,
        latest_version: 1,
        archive_version: 1,
        archive_min_version: 0,
        min_available_version: 0,
        deletion_allowed: false,
        convergent_version: 0,
        type: 8,
        backup_info: { time: '2024-05-02T00:00:00Z', version: 1 },
        restore_info: null,
        allow_plaintext_backup: true,
        version_template: '',
        storage_prefix: '',
        auto_rotate_period: 0,
        Imported: false,
        AllowImportedKeyRotation: false,
      },
      archived_keys: { keys: [{ key: null, hmac_key: null, time: '0001-01-01T00:00:00Z', creation_time: 0 }, entry] },
    };
    await ok(server, 'POST', 'transit/restore', { backup: b64(JSON.stringify(document)) });
    const read = (await ok(server, 'GET', 'transit/keys/from-real')).body.data;
    expect(read).toMatchObject({ type: 'aes128-gcm96', latest_version: 1, restore_info: { version: 1 } });
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-128-gcm', key, nonce);
    const sealed = Buffer.concat([nonce, cipher.update('built outside'), cipher.final(), cipher.getAuthTag()]);
    const opened = (await ok(server, 'POST', 'transit/decrypt/from-real', { ciphertext: `vault:v1:${b64(sealed)}` })).body.data.plaintext;
    expect(Buffer.from(opened, 'base64').toString()).toBe('built outside');
  });
});
