import { constants, createHash, createHmac, createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';
import { hasOpenssl, ok, openssl, requireOpenssl } from '../pki/support.js';

/**
 * Transit signatures and HMACs checked independently: with Node's crypto (and openssl) against
 * the public keys and HMAC keys the engine exports, never through the engine's own verify.
 */
let server: TestServer;
const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
const message = Buffer.from('the quick brown fox');

async function fails(method: string, path: string, body: unknown, status: number, message: string) {
  const reply = await v1(server, method, path, body === undefined ? {} : { body });
  expect({ status: reply.status, errors: reply.body?.errors }, `${method} ${path}`).toEqual({ status, errors: [message] });
}

const payload = (signature: string) => signature.replace(/^vault:v\d+:/, '');

async function publicKey(name: string): Promise<string> {
  return (await ok(server, 'GET', `transit/keys/${name}`)).body.data.keys['1'].public_key as string;
}

async function engineVerifies(name: string, signature: string, body: Record<string, unknown> = {}): Promise<boolean> {
  return (await ok(server, 'POST', `transit/verify/${name}`, { input: b64(message), signature, ...body })).body.data.valid as boolean;
}

beforeAll(async () => {
  server = await startServer();
  await ok(server, 'POST', 'sys/mounts/transit', { type: 'transit' });
});
afterAll(() => server.close());

describe('ECDSA', () => {
  it.each([
    ['ecdsa-p256', 'sha2-256', 'sha256', 32],
    ['ecdsa-p384', 'sha2-384', 'sha384', 48],
    ['ecdsa-p521', 'sha2-512', 'sha512', 66],
  ] as const)('%s signs in ASN.1 and JWS form, verified by Node with the public key', async (type, hash, nodeHash, half) => {
    await ok(server, 'POST', `transit/keys/${type}`, { type });
    const pem = await publicKey(type);
    expect(pem.startsWith('-----BEGIN PUBLIC KEY-----')).toBe(true);
    const asn1 = (await ok(server, 'POST', `transit/sign/${type}/${hash}`, { input: b64(message) })).body.data;
    expect(asn1).toMatchObject({ key_version: 1 });
    expect(verify(nodeHash, message, pem, Buffer.from(payload(asn1.signature), 'base64'))).toBe(true);
    const jws = (
      await ok(server, 'POST', `transit/sign/${type}`, { input: b64(message), hash_algorithm: hash, marshaling_algorithm: 'jws' })
    ).body.data.signature as string;
    const raw = Buffer.from(payload(jws), 'base64url');
    expect(raw.length).toBe(half * 2);
    expect(payload(jws)).not.toMatch(/[+/=]/);
    expect(verify(nodeHash, message, { key: pem, dsaEncoding: 'ieee-p1363' }, raw)).toBe(true);
    expect(await engineVerifies(type, asn1.signature, { hash_algorithm: hash })).toBe(true);
    expect(await engineVerifies(type, jws, { hash_algorithm: hash, marshaling_algorithm: 'jws' })).toBe(true);
    expect(await engineVerifies(type, asn1.signature, { hash_algorithm: 'sha2-224' })).toBe(false);
  });

  it('signs a digest the caller computed (prehashed), verified by Node over the message', async () => {
    await ok(server, 'POST', 'transit/keys/pre384', { type: 'ecdsa-p384' });
    const digest = createHash('sha384').update(message).digest();
    const signed = (await ok(server, 'POST', 'transit/sign/pre384', { input: b64(digest), prehashed: true })).body.data.signature as string;
    expect(verify('sha384', message, await publicKey('pre384'), Buffer.from(payload(signed), 'base64'))).toBe(true);
    const reply = await ok(server, 'POST', 'transit/verify/pre384', { input: b64(digest), prehashed: true, signature: signed });
    expect(reply.body.data.valid).toBe(true);
    const other = createHash('sha384').update('other').digest();
    expect(
      (await ok(server, 'POST', 'transit/verify/pre384', { input: b64(other), prehashed: true, signature: signed })).body.data.valid,
    ).toBe(false);
  });

  it('verifies with openssl', async () => {
    if (!hasOpenssl) {
      if (process.env.CI) requireOpenssl();
      return;
    }
    await ok(server, 'POST', 'transit/keys/ossl', { type: 'ecdsa-p256' });
    const signature = (await ok(server, 'POST', 'transit/sign/ossl', { input: b64(message) })).body.data.signature as string;
    const dir = mkdtempSync(join(tmpdir(), 'understudy-transit-'));
    try {
      const pub = join(dir, 'pub.pem');
      const sig = join(dir, 'sig.der');
      const msg = join(dir, 'msg.txt');
      writeFileSync(pub, await publicKey('ossl'));
      writeFileSync(sig, Buffer.from(payload(signature), 'base64'));
      writeFileSync(msg, message);
      expect(openssl(['dgst', '-sha256', '-verify', pub, '-signature', sig, msg]).output).toContain('Verified OK');
      writeFileSync(msg, 'tampered');
      expect(openssl(['dgst', '-sha256', '-verify', pub, '-signature', sig, msg]).status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ed25519', () => {
  it('signs the input itself; Node verifies with the raw public key', async () => {
    await ok(server, 'POST', 'transit/keys/ed', { type: 'ed25519', exportable: true });
    const raw = Buffer.from(await publicKey('ed'), 'base64');
    expect(raw.length).toBe(32);
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
    const signature = (await ok(server, 'POST', 'transit/sign/ed', { input: b64(message) })).body.data.signature as string;
    expect(verify(null, message, key, Buffer.from(payload(signature), 'base64'))).toBe(true);
    const exported = Buffer.from((await ok(server, 'GET', 'transit/export/signing-key/ed/1')).body.data.keys['1'] as string, 'base64');
    expect(exported.length).toBe(64);
    expect(exported.subarray(32).equals(raw)).toBe(true);
    expect(await engineVerifies('ed', signature)).toBe(true);
  });

  it('derives a signing key per context and shows its public key', async () => {
    await ok(server, 'POST', 'transit/keys/edd', { type: 'ed25519', derived: true });
    const context = b64('user-1');
    const signed = (await ok(server, 'POST', 'transit/sign/edd', { input: b64(message), context })).body.data;
    const shown = (await ok(server, 'GET', `transit/keys/edd?context=${encodeURIComponent(context)}`)).body.data.keys['1'].public_key;
    expect(signed.public_key).toBe(shown);
    const key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(shown, 'base64').toString('base64url') },
      format: 'jwk',
    });
    expect(verify(null, message, key, Buffer.from(payload(signed.signature), 'base64'))).toBe(true);
    expect((await ok(server, 'GET', 'transit/keys/edd')).body.data.keys['1'].public_key).toBe('');
    expect(await engineVerifies('edd', signed.signature, { context })).toBe(true);
    expect(await engineVerifies('edd', signed.signature, { context: b64('user-2') })).toBe(false);
  });
});

describe('RSA', () => {
  beforeAll(async () => {
    await ok(server, 'POST', 'transit/keys/rsa', { type: 'rsa-2048', exportable: true });
  });

  it('signs with PSS (default) and PKCS #1 v1.5, verified by Node', async () => {
    const pem = await publicKey('rsa');
    const pss = (await ok(server, 'POST', 'transit/sign/rsa/sha2-512', { input: b64(message) })).body.data.signature as string;
    const pssOk = verify(
      'sha512',
      message,
      { key: pem, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO },
      Buffer.from(payload(pss), 'base64'),
    );
    expect(pssOk).toBe(true);
    const v15 = (await ok(server, 'POST', 'transit/sign/rsa', { input: b64(message), signature_algorithm: 'pkcs1v15' })).body.data
      .signature as string;
    expect(verify('sha256', message, { key: pem, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(payload(v15), 'base64'))).toBe(true);
    expect(await engineVerifies('rsa', pss, { hash_algorithm: 'sha2-512' })).toBe(true);
    expect(await engineVerifies('rsa', v15, { signature_algorithm: 'pkcs1v15' })).toBe(true);
    expect(await engineVerifies('rsa', v15, { signature_algorithm: 'pss' })).toBe(false);
  });

  it('signs caller-made digests (prehashed), PSS and PKCS #1 v1.5', async () => {
    const pem = await publicKey('rsa');
    const digest = createHash('sha256').update(message).digest();
    const pss = (await ok(server, 'POST', 'transit/sign/rsa', { input: b64(digest), prehashed: true, salt_length: 'hash' })).body.data
      .signature;
    const pssOk = verify(
      'sha256',
      message,
      { key: pem, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 },
      Buffer.from(payload(pss), 'base64'),
    );
    expect(pssOk).toBe(true);
    const v15 = (await ok(server, 'POST', 'transit/sign/rsa', { input: b64(digest), prehashed: true, signature_algorithm: 'pkcs1v15' }))
      .body.data.signature;
    expect(verify('sha256', message, { key: pem, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(payload(v15), 'base64'))).toBe(true);
    const verified = await ok(server, 'POST', 'transit/verify/rsa', { input: b64(digest), prehashed: true, signature: pss });
    expect(verified.body.data.valid).toBe(true);
    await fails(
      'POST',
      'transit/sign/rsa',
      { input: b64(digest), hash_algorithm: 'none' },
      400,
      'hash_algorithm=none requires both prehashed=true and signature_algorithm=pkcs1v15',
    );
  });
});

describe('sign and verify: batches and failures', () => {
  it('signs and verifies a batch in order with references', async () => {
    await ok(server, 'POST', 'transit/keys/batchsig', { type: 'ecdsa-p256' });
    const inputs = [{ input: b64('a'), reference: 'r1' }, { input: b64('b'), reference: 'r2' }, { input: 'bad*' }];
    const signed = (await ok(server, 'POST', 'transit/sign/batchsig', { batch_input: inputs })).body.data.batch_results;
    expect(signed.map((item: { reference: string }) => item.reference)).toEqual(['r1', 'r2', '']);
    expect(signed[2].error).toBe('unable to decode input: illegal base64 data at input byte 3');
    const checks = [
      { input: b64('a'), signature: signed[0].signature },
      { input: b64('a'), signature: signed[1].signature },
      { input: b64('a'), signature: 'unprefixed', reference: 'bad' },
    ];
    const verified = (await ok(server, 'POST', 'transit/verify/batchsig', { batch_input: checks })).body.data.batch_results;
    expect(verified.map((item: { valid: boolean }) => item.valid)).toEqual([true, false, false]);
    expect(verified[2]).toEqual({ valid: false, error: 'invalid signature: no prefix', reference: 'bad' });
  });

  it('answers bad requests with the real texts', async () => {
    await ok(server, 'POST', 'transit/keys/aeskey', {});
    await ok(server, 'POST', 'transit/keys/sigkey', { type: 'ecdsa-p256' });
    await fails('POST', 'transit/sign/nokey', { input: b64('a') }, 400, 'signing key not found');
    await fails(
      'POST',
      'transit/verify/nokey',
      { input: b64('a'), signature: 'vault:v1:AA==' },
      400,
      'signature verification key not found',
    );
    await fails('POST', 'transit/sign/aeskey', { input: b64('a') }, 400, 'key type aes256-gcm96 does not support signing');
    await fails('POST', 'transit/sign/sigkey/sha2-999', { input: b64('a') }, 400, 'invalid hash algorithm "sha2-999"');
    await fails('POST', 'transit/sign/sigkey', { input: b64('a'), marshaling_algorithm: 'pem' }, 400, 'invalid marshaling type "pem"');
    await fails(
      'POST',
      'transit/sign/sigkey',
      { input: b64('a'), key_version: 2 },
      400,
      'requested version for signing is higher than the latest key version',
    );
    await fails(
      'POST',
      'transit/verify/sigkey',
      { input: b64('a') },
      400,
      "missing one of 'signature', 'hmac' or 'cmac' arguments to verify",
    );
    await fails(
      'POST',
      'transit/verify/sigkey',
      { input: b64('a'), signature: 'x', hmac: 'y' },
      400,
      "provide one of 'signature', 'hmac' or 'cmac'",
    );
    await fails('POST', 'transit/verify/sigkey', { input: b64('a'), signature: 'sig' }, 400, 'invalid signature: no prefix');
    await fails(
      'POST',
      'transit/verify/sigkey',
      { input: b64('a'), signature: 'vault:v9:AA==' },
      400,
      'invalid signature: version is too new',
    );
    await fails(
      'POST',
      'transit/verify/sigkey',
      { batch_input: [{ input: b64('a'), signature: 'vault:v1:AA==' }, { input: b64('b') }] },
      400,
      "some elements of batch_input are missing 'signature'",
    );
  });
});

describe('hmac, hash and random', () => {
  it('HMACs with the exported HMAC key and verifies', async () => {
    await ok(server, 'POST', 'transit/keys/mac', { exportable: true });
    const hmac = (await ok(server, 'POST', 'transit/hmac/mac/sha2-384', { input: b64(message) })).body.data.hmac as string;
    const key = Buffer.from((await ok(server, 'GET', 'transit/export/hmac-key/mac/1')).body.data.keys['1'] as string, 'base64');
    expect(hmac).toBe(`vault:v1:${createHmac('sha384', key).update(message).digest('base64')}`);
    const valid = (await ok(server, 'POST', 'transit/verify/mac/sha2-384', { input: b64(message), hmac })).body.data.valid;
    expect(valid).toBe(true);
    const wrong = (await ok(server, 'POST', 'transit/verify/mac', { input: b64(message), hmac })).body.data.valid;
    expect(wrong).toBe(false);
    await fails('POST', 'transit/hmac/mac/md5', { input: b64(message) }, 400, 'unsupported algorithm md5');
    await fails('POST', 'transit/hmac/nokey', { input: b64(message) }, 400, 'encryption key not found');
    await fails('POST', 'transit/verify/mac', { input: b64(message), hmac: 'abc' }, 400, 'invalid HMAC to verify: no version prefix');
  });

  it('hmac-type keys use their own key of key_size bytes', async () => {
    await ok(server, 'POST', 'transit/keys/hk', { type: 'hmac', key_size: 64, exportable: true });
    const read = (await ok(server, 'GET', 'transit/keys/hk')).body.data;
    expect(read).toMatchObject({ type: 'hmac', key_size: 64, supports_signing: false, supports_encryption: false });
    const key = Buffer.from((await ok(server, 'GET', 'transit/export/hmac-key/hk/1')).body.data.keys['1'] as string, 'base64');
    expect(key.length).toBe(64);
    const hmac = (await ok(server, 'POST', 'transit/hmac/hk', { input: b64('x') })).body.data.hmac;
    expect(hmac).toBe(`vault:v1:${createHmac('sha256', key).update('x').digest('base64')}`);
  });

  it('hashes and returns random bytes, with the real refusals', async () => {
    const sum = (await ok(server, 'POST', 'transit/hash/sha2-512', { input: b64(message) })).body.data.sum;
    expect(sum).toBe(createHash('sha512').update(message).digest('hex'));
    const sha3 = (await ok(server, 'POST', 'transit/hash', { input: b64(message), algorithm: 'sha3-256', format: 'base64' })).body.data.sum;
    expect(sha3).toBe(createHash('sha3-256').update(message).digest('base64'));
    await fails('POST', 'transit/hash/md5', { input: b64(message) }, 400, 'unsupported algorithm md5');
    await fails(
      'POST',
      'transit/hash',
      { input: b64(message), format: 'raw' },
      400,
      'unsupported encoding format raw; must be "hex" or "base64"',
    );
    expect(Buffer.from((await ok(server, 'POST', 'transit/random', {})).body.data.random_bytes, 'base64').length).toBe(32);
    expect((await ok(server, 'POST', 'transit/random/16', { format: 'hex' })).body.data.random_bytes).toMatch(/^[0-9a-f]{32}$/);
    expect(Buffer.from((await ok(server, 'POST', 'transit/random/platform/8', {})).body.data.random_bytes, 'base64').length).toBe(8);
    await fails('POST', 'transit/random', { bytes: 0 }, 400, '"bytes" cannot be less than 1');
    await fails('POST', 'transit/random/200000', {}, 400, '"bytes" should be less than 131072');
    await fails('POST', 'transit/random', { format: 'raw' }, 400, 'unsupported encoding format "raw"; must be "hex" or "base64"');
  });
});

describe('export, backup and restore', () => {
  it('exports in the real formats and refuses what is not exportable', async () => {
    await ok(server, 'POST', 'transit/keys/ec-x', { type: 'ecdsa-p256', exportable: true });
    const ecPem = (await ok(server, 'GET', 'transit/export/signing-key/ec-x')).body.data.keys['1'] as string;
    expect(ecPem.startsWith('-----BEGIN EC PRIVATE KEY-----')).toBe(true);
    const pub = (await ok(server, 'GET', 'transit/export/public-key/ec-x/latest')).body.data;
    expect(pub).toMatchObject({ name: 'ec-x', type: 'ecdsa-p256' });
    expect(createPublicKey(ecPem).export({ type: 'spki', format: 'pem' }).toString().trim()).toBe(pub.keys['1']);
    await ok(server, 'POST', 'transit/keys/locked', {});
    await fails('GET', 'transit/export/encryption-key/locked', undefined, 400, 'private key material is not exportable');
    await fails('GET', 'transit/export/secret-key/ec-x', undefined, 400, 'invalid export type: secret-key');
    await fails('GET', 'transit/export/encryption-key/ec-x', undefined, 400, 'encryption not supported for the key');
    await fails('GET', 'transit/export/signing-key/ec-x/7', undefined, 400, 'version does not exist or cannot be found');
    expect((await v1(server, 'GET', 'transit/export/signing-key/nokey')).status).toBe(404);
  });

  it('backs up and restores a key that still decrypts its ciphertexts', async () => {
    await ok(server, 'POST', 'transit/keys/bk', { exportable: true, allow_plaintext_backup: true });
    const { ciphertext } = (await ok(server, 'POST', 'transit/encrypt/bk', { plaintext: b64('kept') })).body.data;
    const backup = (await ok(server, 'GET', 'transit/backup/bk')).body.data.backup as string;
    expect((await ok(server, 'GET', 'transit/keys/bk')).body.data.backup_info.version).toBe(1);
    await fails('POST', 'transit/restore', { backup }, 400, 'key "bk" already exists');
    await ok(server, 'POST', 'transit/restore/bk-copy', { backup });
    expect((await ok(server, 'POST', 'transit/decrypt/bk-copy', { ciphertext })).body.data.plaintext).toBe(b64('kept'));
    expect((await ok(server, 'GET', 'transit/keys/bk-copy')).body.data.restore_info.version).toBe(1);
    await ok(server, 'POST', 'transit/keys/nobk', { exportable: true });
    await fails('GET', 'transit/backup/nobk', undefined, 400, 'plaintext backup is disallowed on the policy');
    await fails('POST', 'transit/restore', {}, 400, "'backup' must be supplied");
    await fails('POST', 'transit/restore', { backup: b64('{}') }, 400, 'failed to restore the policy: backup is not a transit key backup');
  });
});
