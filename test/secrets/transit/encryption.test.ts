import { constants, createDecipheriv, createHmac, createPrivateKey, hkdfSync, privateDecrypt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';
import { ok } from '../pki/support.js';

/**
 * Transit encryption checked independently: ciphertexts are opened here with Node's crypto from
 * the exported key material and the real service's layout (`vault:vN:` + base64(nonce ‖ ct ‖ tag),
 * HKDF-SHA256 for derived keys, HMAC nonces for convergent ones), never through the engine's code.
 */
let server: TestServer;
const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');

async function fails(method: string, path: string, body: unknown, status: number, message: string) {
  const reply = await v1(server, method, path, body === undefined ? {} : { body });
  expect({ status: reply.status, errors: reply.body?.errors }, `${method} ${path}`).toEqual({ status, errors: [message] });
}

async function exportedKey(name: string, version = 1): Promise<Buffer> {
  const reply = await ok(server, 'GET', `transit/export/encryption-key/${name}/${version}`);
  return Buffer.from(reply.body.data.keys[String(version)] as string, 'base64');
}

/** Opens a `vault:vN:` AEAD ciphertext the way the real service lays it out. */
function openAead(cipher: 'aes-128-gcm' | 'aes-256-gcm' | 'chacha20-poly1305', key: Buffer, ciphertext: string, aad?: Buffer): Buffer {
  const match = /^vault:v(\d+):(.+)$/.exec(ciphertext);
  expect(match).not.toBeNull();
  const raw = Buffer.from(match?.[2] ?? '', 'base64');
  const nonce = raw.subarray(0, 12);
  const tag = raw.subarray(raw.length - 16);
  const decipher = createDecipheriv(cipher as 'aes-256-gcm', key, nonce, { authTagLength: 16 });
  decipher.setAuthTag(tag);
  if (aad) decipher.setAAD(aad);
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
}

beforeAll(async () => {
  server = await startServer();
  await ok(server, 'POST', 'sys/mounts/transit', { type: 'transit' });
});
afterAll(() => server.close());

describe('transit keys', () => {
  it('creates, reads, lists and deletes a key, refusing deletion until allowed', async () => {
    const created = await ok(server, 'POST', 'transit/keys/orders', { exportable: true });
    expect(created.body.data).toMatchObject({ name: 'orders', type: 'aes256-gcm96', latest_version: 1, min_decryption_version: 1 });
    const read = (await ok(server, 'GET', 'transit/keys/orders')).body.data;
    expect(read).toMatchObject({
      supports_encryption: true,
      supports_signing: false,
      derived: false,
      exportable: true,
      deletion_allowed: false,
    });
    expect(Object.keys(read.keys)).toEqual(['1']);
    expect(typeof read.keys['1']).toBe('number');
    const again = await ok(server, 'POST', 'transit/keys/orders', {});
    expect(again.body.warnings).toEqual(['key orders already existed']);
    expect((await ok(server, 'GET', 'transit/keys?list=true')).body.data.keys).toContain('orders');

    await ok(server, 'POST', 'transit/keys/doomed', {});
    await fails('DELETE', 'transit/keys/doomed', undefined, 400, 'error deleting policy doomed: deletion is not allowed for this key');
    await ok(server, 'POST', 'transit/keys/doomed/config', { deletion_allowed: true });
    expect((await v1(server, 'DELETE', 'transit/keys/doomed')).status).toBe(204);
    expect((await v1(server, 'GET', 'transit/keys/doomed')).status).toBe(404);
    await fails('DELETE', 'transit/keys/doomed', undefined, 400, 'error deleting policy doomed: could not delete key; not found');
  });

  it('refuses bad key options with the real texts and stores nothing', async () => {
    await fails('POST', 'transit/keys/k1', { type: 'des' }, 400, 'unknown key type des');
    await fails('POST', 'transit/keys/k1', { convergent_encryption: true }, 400, 'convergent encryption requires derivation to be enabled');
    await fails(
      'POST',
      'transit/keys/k1',
      { auto_rotate_period: '10m' },
      400,
      'auto rotate period must be 0 to disable or at least an hour',
    );
    await fails('POST', 'transit/keys/k1', { type: 'aes256-gcm96', key_size: 64 }, 400, 'key_size is not valid for algorithm aes256-gcm96');
    await fails('POST', 'transit/keys/k1', { type: 'hmac', key_size: 8 }, 400, 'invalid key_size 8');
    await fails(
      'POST',
      'transit/keys/k1',
      { type: 'ecdsa-p256', derived: true },
      400,
      'key derivation and convergent encryption not supported for keys of type ecdsa-p256',
    );
    await fails(
      'POST',
      'transit/keys/k1',
      { type: 'ed25519', derived: true, convergent_encryption: true },
      400,
      'convergent encryption not supported for keys of type ed25519',
    );
    expect((await v1(server, 'GET', 'transit/keys/k1')).status).toBe(404);
  });

  it('configures version bounds, rotates and trims', async () => {
    await ok(server, 'POST', 'transit/keys/ring', { exportable: true });
    const first = (await ok(server, 'POST', 'transit/encrypt/ring', { plaintext: b64('v1 data') })).body.data.ciphertext as string;
    await ok(server, 'POST', 'transit/keys/ring/rotate');
    const rotated = (await ok(server, 'POST', 'transit/keys/ring/rotate')).body.data;
    expect(rotated.latest_version).toBe(3);
    const latest = (await ok(server, 'POST', 'transit/encrypt/ring', { plaintext: b64('x') })).body.data;
    expect(latest.key_version).toBe(3);
    expect(latest.ciphertext).toMatch(/^vault:v3:/);
    const older = (await ok(server, 'POST', 'transit/encrypt/ring', { plaintext: b64('x'), key_version: 2 })).body.data;
    expect(older.ciphertext).toMatch(/^vault:v2:/);

    await fails(
      'POST',
      'transit/keys/ring/config',
      { min_decryption_version: 9 },
      400,
      'cannot set min decryption version of 9, latest key version is 3',
    );
    await fails('POST', 'transit/keys/ring/config', { min_encryption_version: -1 }, 400, 'min encryption version cannot be negative');
    await fails(
      'POST',
      'transit/keys/ring/config',
      { min_decryption_version: 3, min_encryption_version: 2 },
      400,
      'cannot set min encryption/decryption values; min encryption version of 2 ' +
        'must be greater than or equal to min decryption version of 3',
    );
    expect((await ok(server, 'GET', 'transit/keys/ring')).body.data.min_decryption_version).toBe(1);
    await fails('POST', 'transit/keys/nope/config', { deletion_allowed: true }, 400, 'no existing key named nope could be found');

    await ok(server, 'POST', 'transit/keys/ring/config', { min_decryption_version: 2, min_encryption_version: 3 });
    await fails(
      'POST',
      'transit/decrypt/ring',
      { ciphertext: first },
      400,
      'ciphertext or signature version is disallowed by policy (too old)',
    );
    await fails(
      'POST',
      'transit/encrypt/ring',
      { plaintext: b64('x'), key_version: 2 },
      400,
      'requested version for encryption is less than the minimum encryption key version',
    );
    await fails(
      'POST',
      'transit/keys/ring/trim',
      { min_available_version: 3 },
      400,
      'cannot set minimum available version to be greater than minimum decryption version',
    );
    await fails('POST', 'transit/keys/ring/trim', { min_available_version: 0 }, 400, 'minimum available version should be positive');
    const trimmed = (await ok(server, 'POST', 'transit/keys/ring/trim', { min_available_version: 2 })).body.data;
    expect(Object.keys(trimmed.keys)).toEqual(['2', '3']);
    expect(trimmed.min_available_version).toBe(2);
    await fails('POST', 'transit/keys/ring/trim', { min_available_version: 1 }, 400, 'minimum available version cannot be decremented');
    await fails('POST', 'transit/keys/missing/rotate', {}, 400, 'key not found');
    await fails('POST', 'transit/keys/missing/trim', { min_available_version: 1 }, 400, 'invalid key name');
  });

  it('rotates on the clock once auto_rotate_period has passed', async () => {
    await ok(server, 'POST', 'transit/keys/timed', { auto_rotate_period: '24h' });
    expect((await ok(server, 'GET', 'transit/keys/timed')).body.data.auto_rotate_period).toBe(86400);
    const advanced = await fetch(`${server.baseUrl}/_emulator/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advance: '25h' }),
    });
    const ran = ((await advanced.json()) as { ran: { kind: string; subject: string }[] }).ran;
    expect(ran.filter((work) => work.kind === 'transit-key-rotation').map((work) => work.subject)).toEqual(['timed']);
    expect((await ok(server, 'GET', 'transit/keys/timed')).body.data.latest_version).toBe(2);
  });
});

describe('transit encryption, opened independently', () => {
  it.each(['aes256-gcm96', 'aes128-gcm96', 'chacha20-poly1305'] as const)('%s ciphertexts open with the exported key', async (type) => {
    const name = `plain-${type}`;
    await ok(server, 'POST', `transit/keys/${name}`, { type, exportable: true });
    const plaintext = Buffer.alloc(1024, 7);
    const { ciphertext, key_version } = (await ok(server, 'POST', `transit/encrypt/${name}`, { plaintext: b64(plaintext) })).body.data;
    expect(key_version).toBe(1);
    const cipher = type === 'aes128-gcm96' ? 'aes-128-gcm' : type === 'aes256-gcm96' ? 'aes-256-gcm' : 'chacha20-poly1305';
    const key = await exportedKey(name);
    expect(key.length).toBe(type === 'aes128-gcm96' ? 16 : 32);
    expect(openAead(cipher, key, ciphertext).equals(plaintext)).toBe(true);
    const decrypted = (await ok(server, 'POST', `transit/decrypt/${name}`, { ciphertext })).body.data.plaintext;
    expect(decrypted).toBe(b64(plaintext));
  });

  it('binds associated data', async () => {
    await ok(server, 'POST', 'transit/keys/aad', { exportable: true });
    const aad = Buffer.from('row-17');
    const { ciphertext } = (await ok(server, 'POST', 'transit/encrypt/aad', { plaintext: b64('secret'), associated_data: b64(aad) })).body
      .data;
    expect(openAead('aes-256-gcm', await exportedKey('aad'), ciphertext, aad).toString()).toBe('secret');
    await fails(
      'POST',
      'transit/decrypt/aad',
      { ciphertext, associated_data: b64('row-18') },
      400,
      'cipher: message authentication failed',
    );
    expect((await ok(server, 'POST', 'transit/decrypt/aad', { ciphertext, associated_data: b64(aad) })).body.data.plaintext).toBe(
      b64('secret'),
    );
  });

  it('derives a key per context with HKDF-SHA256', async () => {
    await ok(server, 'POST', 'transit/keys/derived', { derived: true, exportable: true });
    const context = Buffer.from('tenant-a');
    const { ciphertext } = (await ok(server, 'POST', 'transit/encrypt/derived', { plaintext: b64('hello'), context: b64(context) })).body
      .data;
    const derived = Buffer.from(hkdfSync('sha256', await exportedKey('derived'), Buffer.alloc(0), context, 32));
    expect(openAead('aes-256-gcm', derived, ciphertext).toString()).toBe('hello');
    await fails(
      'POST',
      'transit/encrypt/derived',
      { plaintext: b64('hello') },
      400,
      "missing 'context' for key derivation; the key was created using a derived key, " +
        'which means additional, per-request information must be included in order to perform operations with the key',
    );
    await fails('POST', 'transit/decrypt/derived', { ciphertext, context: b64('tenant-b') }, 400, 'cipher: message authentication failed');
    const read = (await ok(server, 'GET', 'transit/keys/derived')).body.data;
    expect(read).toMatchObject({ derived: true, kdf: 'hkdf_sha256', convergent_encryption: false });
  });

  it('convergent keys give the same ciphertext for the same plaintext and context, with an HMAC nonce', async () => {
    await ok(server, 'POST', 'transit/keys/conv', { derived: true, convergent_encryption: true, exportable: true });
    const context = Buffer.from('ctx');
    const encrypt = async () =>
      (await ok(server, 'POST', 'transit/encrypt/conv', { plaintext: b64('same'), context: b64(context) })).body.data.ciphertext as string;
    const first = await encrypt();
    expect(await encrypt()).toBe(first);
    const material = Buffer.from(hkdfSync('sha256', await exportedKey('conv'), Buffer.alloc(0), context, 64));
    const nonce = createHmac('sha256', material.subarray(32)).update('same').digest().subarray(0, 12);
    expect(Buffer.from(first.slice('vault:v1:'.length), 'base64').subarray(0, 12).equals(nonce)).toBe(true);
    expect(openAead('aes-256-gcm', material.subarray(0, 32), first).toString()).toBe('same');
    await fails(
      'POST',
      'transit/encrypt/conv',
      { plaintext: b64('same'), context: b64(context), nonce: b64('123456789012') },
      400,
      'provided nonce not allowed for this key',
    );
  });

  it('RSA keys encrypt with OAEP-SHA256, opened with the exported PKCS #1 key', async () => {
    await ok(server, 'POST', 'transit/keys/rsa', { type: 'rsa-2048', exportable: true });
    const { ciphertext } = (await ok(server, 'POST', 'transit/encrypt/rsa', { plaintext: b64('wrapped dek') })).body.data;
    const pem = (await ok(server, 'GET', 'transit/export/encryption-key/rsa/1')).body.data.keys['1'] as string;
    expect(pem.startsWith('-----BEGIN RSA PRIVATE KEY-----')).toBe(true);
    const raw = Buffer.from((ciphertext as string).slice('vault:v1:'.length), 'base64');
    const opened = privateDecrypt({ key: createPrivateKey(pem), padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, raw);
    expect(opened.toString()).toBe('wrapped dek');
    expect((await ok(server, 'POST', 'transit/decrypt/rsa', { ciphertext })).body.data.plaintext).toBe(b64('wrapped dek'));
    await fails(
      'POST',
      'transit/encrypt/rsa',
      { plaintext: b64('x'), associated_data: b64('y') },
      400,
      "'[0].associated_data' provided for non-AEAD cipher suite rsa-2048",
    );
  });

  it('creates an AES key on the first encrypt (upsert) and warns when it already existed', async () => {
    await ok(server, 'POST', 'transit/encrypt/upserted', { plaintext: b64('a') });
    expect((await ok(server, 'GET', 'transit/keys/upserted')).body.data.type).toBe('aes256-gcm96');
    await fails(
      'POST',
      'transit/encrypt/ups2',
      { plaintext: b64('a'), type: 'ecdsa-p256' },
      400,
      'key type ecdsa-p256 not supported for this operation',
    );
    await fails('POST', 'transit/encrypt/ups2', { plaintext: b64('a'), type: 'ed25519' }, 400, 'unknown key type ed25519');
    await fails(
      'POST',
      'transit/encrypt/ups2',
      { plaintext: b64('a'), convergent_encryption: true },
      400,
      'convergent encryption requires derivation to be enabled, so context is required',
    );
    expect((await v1(server, 'GET', 'transit/keys/ups2')).status).toBe(404);
    expect((await ok(server, 'POST', 'transit/config/keys', { disable_upsert: true })).body.data).toEqual({ disable_upsert: true });
    await fails('POST', 'transit/encrypt/ups3', { plaintext: b64('a') }, 400, 'encryption key not found');
    await ok(server, 'POST', 'transit/config/keys', { disable_upsert: false });
    expect((await ok(server, 'GET', 'transit/config/keys')).body.data).toEqual({ disable_upsert: false });
  });

  it('encrypts with the key as it stands at each request: rotated, bounded, deleted, made again', async () => {
    await ok(server, 'POST', 'transit/keys/changing', {});
    const encrypted = async () => (await ok(server, 'POST', 'transit/encrypt/changing', { plaintext: b64('a') })).body.data;
    expect(await encrypted()).toMatchObject({ key_version: 1, ciphertext: expect.stringMatching(/^vault:v1:/) });
    await ok(server, 'POST', 'transit/keys/changing/rotate');
    expect(await encrypted()).toMatchObject({ key_version: 2, ciphertext: expect.stringMatching(/^vault:v2:/) });
    await ok(server, 'POST', 'transit/keys/changing/config', { min_decryption_version: 2, min_encryption_version: 2 });
    await fails(
      'POST',
      'transit/encrypt/changing',
      { plaintext: b64('a'), key_version: 1 },
      400,
      'requested version for encryption is less than the minimum encryption key version',
    );
    await ok(server, 'POST', 'transit/keys/changing/config', { deletion_allowed: true });
    await ok(server, 'DELETE', 'transit/keys/changing');
    await ok(server, 'POST', 'transit/config/keys', { disable_upsert: true });
    await fails('POST', 'transit/encrypt/changing', { plaintext: b64('a') }, 400, 'encryption key not found');
    await ok(server, 'POST', 'transit/config/keys', { disable_upsert: false });
    const remade = await v1(server, 'POST', 'transit/encrypt/changing', { body: { plaintext: b64('a') } });
    expect({ status: remade.status, version: remade.body.data.key_version, warnings: remade.body.warnings }).toEqual({
      status: 200,
      version: 1,
      warnings: null,
    });
    expect((await ok(server, 'GET', 'transit/keys/changing')).body.data.latest_version).toBe(1);
  });

  it('takes a key whose stored form does not open as there but unreadable: not found, never made again', async () => {
    await ok(server, 'POST', 'transit/keys/tampered', {});
    const sqlite = server.app.runtime.store.sqlite;
    const row = sqlite.prepare("SELECT value FROM secret_entries WHERE key = 'policy/tampered'").get() as { value: string };
    const middle = Math.floor(row.value.length / 2);
    const altered = `${row.value.slice(0, middle)}${row.value[middle] === 'A' ? 'B' : 'A'}${row.value.slice(middle + 1)}`;
    sqlite.prepare("UPDATE secret_entries SET value = ? WHERE key = 'policy/tampered'").run(altered);
    await fails('POST', 'transit/encrypt/tampered', { plaintext: b64('a') }, 400, 'encryption key not found');
    const kept = sqlite.prepare("SELECT value FROM secret_entries WHERE key = 'policy/tampered'").get() as { value: string };
    expect(kept.value).toBe(altered);
  });

  it('needs create on encrypt/ to make a key there, update to use one', async () => {
    await ok(server, 'POST', 'transit/keys/shared', {});
    await ok(server, 'POST', 'sys/policies/acl/encrypt-only', { policy: 'path "transit/encrypt/*" { capabilities = ["update"] }' });
    const token = (await ok(server, 'POST', 'auth/token/create', { policies: ['encrypt-only'] })).body.auth.client_token as string;
    const used = await v1(server, 'POST', 'transit/encrypt/shared', { token, body: { plaintext: b64('a') } });
    expect(used.status).toBe(200);
    const refused = await v1(server, 'POST', 'transit/encrypt/brand-new', { token, body: { plaintext: b64('a') } });
    expect(refused.status).toBe(403);
    expect((await v1(server, 'GET', 'transit/keys/brand-new')).status).toBe(404);
    expect((await v1(server, 'POST', 'transit/decrypt/shared', { token, body: { ciphertext: used.body.data.ciphertext } })).status).toBe(
      403,
    );
  });

  it('answers malformed input with the real texts', async () => {
    await ok(server, 'POST', 'transit/keys/errs', {});
    await fails('POST', 'transit/encrypt/errs', {}, 400, 'missing plaintext to encrypt');
    await fails('POST', 'transit/encrypt/errs', { plaintext: 'not*base64' }, 400, 'illegal base64 data at input byte 3');
    await fails('POST', 'transit/decrypt/errs', {}, 400, 'missing ciphertext to decrypt');
    await fails('POST', 'transit/decrypt/missing', { ciphertext: 'vault:v1:AAAA' }, 400, 'encryption key not found');
    await fails('POST', 'transit/decrypt/errs', { ciphertext: 'v1:abc' }, 400, 'invalid ciphertext: no prefix');
    await fails(
      'POST',
      'transit/decrypt/errs',
      { ciphertext: 'vault:vx:abc' },
      400,
      'invalid ciphertext: version number could not be decoded',
    );
    await fails('POST', 'transit/decrypt/errs', { ciphertext: 'vault:v1' }, 400, 'invalid ciphertext: wrong number of fields');
    await fails('POST', 'transit/decrypt/errs', { ciphertext: 'vault:v7:AAAA' }, 400, 'invalid ciphertext: version is too new');
    await fails('POST', 'transit/decrypt/errs', { ciphertext: 'vault:v1:%%%' }, 400, 'invalid ciphertext: could not decode base64');
    await fails('POST', 'transit/decrypt/errs', { ciphertext: 'vault:v1:AAAA' }, 400, 'invalid ciphertext length');
    await fails(
      'POST',
      'transit/encrypt/errs',
      { plaintext: b64('a'), key_version: 5 },
      400,
      'requested version for encryption is higher than the latest key version',
    );
    await fails(
      'POST',
      'transit/encrypt/errs',
      { plaintext: b64('a'), key_version: -1 },
      400,
      'requested version for encryption is negative',
    );
  });
});

describe('transit batches, rewrap and data keys', () => {
  it('answers each batch item with exactly ciphertext, key_version and reference, null members counting as absent', async () => {
    await ok(server, 'POST', 'transit/keys/members', { exportable: true });
    await ok(server, 'POST', 'transit/keys/members/rotate', {});
    const key1 = await exportedKey('members', 1);
    const key2 = await exportedKey('members', 2);
    const items = [
      { plaintext: b64('as sent'), reference: 'r1', key_version: 1 },
      { plaintext: b64('with nulls'), reference: null, context: null, key_version: null },
    ];
    const results = (await ok(server, 'POST', 'transit/encrypt/members', { batch_input: items })).body.data.batch_results;
    expect(results.map((item: object) => Object.keys(item))).toEqual([
      ['ciphertext', 'key_version', 'reference'],
      ['ciphertext', 'key_version', 'reference'],
    ]);
    expect(results.map((item: { key_version: number; reference: string }) => [item.key_version, item.reference])).toEqual([
      [1, 'r1'],
      [2, ''],
    ]);
    expect(results[0].ciphertext).toMatch(/^vault:v1:/);
    expect(openAead('aes-256-gcm', key1, results[0].ciphertext).toString()).toBe('as sent');
    expect(results[1].ciphertext).toMatch(/^vault:v2:/);
    expect(openAead('aes-256-gcm', key2, results[1].ciphertext).toString()).toBe('with nulls');
  });

  it('encrypts and decrypts a batch in order, keeping references, with 400 on partial failure unless overridden', async () => {
    await ok(server, 'POST', 'transit/keys/batch', {});
    const items = [
      { plaintext: b64('one'), reference: 'a' },
      { plaintext: b64('two'), reference: 'b' },
    ];
    const encrypted = (await ok(server, 'POST', 'transit/encrypt/batch', { batch_input: items })).body.data.batch_results;
    expect(encrypted.map((item: { reference: string }) => item.reference)).toEqual(['a', 'b']);
    const decrypted = (
      await ok(server, 'POST', 'transit/decrypt/batch', {
        batch_input: encrypted.map((item: { ciphertext: string }) => ({ ciphertext: item.ciphertext })),
      })
    ).body.data.batch_results;
    expect(decrypted.map((item: { plaintext: string }) => Buffer.from(item.plaintext, 'base64').toString())).toEqual(['one', 'two']);

    const mixed = [{ ciphertext: encrypted[0].ciphertext }, { ciphertext: 'vault:v1:AAAA' }];
    const partial = await v1(server, 'POST', 'transit/decrypt/batch', { body: { batch_input: mixed } });
    expect(partial.status).toBe(400);
    expect(partial.body.data.batch_results[1]).toEqual({ plaintext: '', error: 'invalid ciphertext length', reference: '' });
    expect(partial.body.data.batch_results[0].plaintext).toBe(b64('one'));
    const overridden = await v1(server, 'POST', 'transit/decrypt/batch', {
      body: { batch_input: mixed, partial_failure_response_code: 207 },
    });
    expect(overridden.status).toBe(207);
    await fails('POST', 'transit/encrypt/batch', { batch_input: [] }, 400, 'missing batch input to process');
    await fails(
      'POST',
      'transit/encrypt/batch',
      { batch_input: [{ plaintext: b64('x'), context: b64('c') }, { plaintext: b64('y') }] },
      400,
      'context should be set either in all the request blocks or in none',
    );
    await fails(
      'POST',
      'transit/encrypt/batch',
      { batch_input: [{ context: b64('c') }] },
      400,
      "failed to parse batch input: 1 error(s) decoding:\n\n* '[0].plaintext' missing plaintext to encrypt",
    );
  });

  it('rewraps to the latest version without showing the plaintext', async () => {
    await ok(server, 'POST', 'transit/keys/rewrap', { exportable: true });
    const { ciphertext } = (await ok(server, 'POST', 'transit/encrypt/rewrap', { plaintext: b64('keep') })).body.data;
    await ok(server, 'POST', 'transit/keys/rewrap/rotate');
    const rewrapped = (await ok(server, 'POST', 'transit/rewrap/rewrap', { ciphertext })).body.data;
    expect(rewrapped).toMatchObject({ key_version: 2 });
    expect(rewrapped.plaintext).toBeUndefined();
    expect(openAead('aes-256-gcm', await exportedKey('rewrap', 2), rewrapped.ciphertext).toString()).toBe('keep');
    await fails('POST', 'transit/rewrap/rewrap', {}, 400, 'missing ciphertext to decrypt');
  });

  it('issues data keys: the plaintext one matches its ciphertext, the wrapped one hides it', async () => {
    await ok(server, 'POST', 'transit/keys/dek', { exportable: true });
    const plain = (await ok(server, 'POST', 'transit/datakey/plaintext/dek', { bits: 512 })).body.data;
    const dataKey = Buffer.from(plain.plaintext, 'base64');
    expect(dataKey.length).toBe(64);
    expect(openAead('aes-256-gcm', await exportedKey('dek'), plain.ciphertext).equals(dataKey)).toBe(true);
    const wrapped = (await ok(server, 'POST', 'transit/datakey/wrapped/dek', {})).body.data;
    expect(wrapped.plaintext).toBeUndefined();
    expect(openAead('aes-256-gcm', await exportedKey('dek'), wrapped.ciphertext).length).toBe(32);
    await fails('POST', 'transit/datakey/other/dek', {}, 400, "Invalid path, must be 'plaintext' or 'wrapped'");
    await fails('POST', 'transit/datakey/plaintext/dek', { bits: 100 }, 400, 'invalid bits value');
    await fails('POST', 'transit/datakey/plaintext/none', {}, 400, 'encryption key not found');
  });
});
