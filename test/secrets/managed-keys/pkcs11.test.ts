import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { buildSecretsContext, ENGINES } from '../../../src/secrets/plugin.js';
import { verifySignature } from '../../../src/secrets/managed-keys/service.js';
import { list, v1 } from '../core/client.js';
import { SOFTHSM_LIBRARY, softHsm, softHsmMissing, type SoftHsm } from './softhsm.js';

const PIN = '1234';

describe.skipIf(softHsmMissing !== null)('managed keys: pkcs11 against SoftHSM2', () => {
  let hsm: SoftHsm;
  let slot: string;
  let server: TestServer;

  beforeAll(async () => {
    hsm = softHsm();
    slot = hsm.initToken('mk-token', PIN);
    hsm.initToken('other-token', '9999');
    server = await startServer({ UNDERSTUDY_KMS_LIBRARIES: `softhsm=${SOFTHSM_LIBRARY},missing=/nonexistent/libpkcs11.so` });
  });
  afterAll(async () => {
    await server?.close();
    hsm?.remove();
  });

  const write = (name: string, body: Record<string, unknown>) => v1(server, 'POST', `sys/managed-keys/pkcs11/${name}`, { body });
  const testSign = (name: string) => v1(server, 'POST', `sys/managed-keys/pkcs11/${name}/test/sign`);
  const rsaKey = {
    library: 'softhsm',
    token_label: 'mk-token',
    pin: PIN,
    mechanism: '0x0001',
    key_label: 'rsa-signing',
    key_bits: '2048',
    allow_generate_key: 'true',
  };

  it('creates a key, reads it back with the PIN masked and values typed, and lists it', async () => {
    expect((await write('hsm-rsa', rsaKey)).status).toBe(204);
    const read = await v1(server, 'GET', 'sys/managed-keys/pkcs11/hsm-rsa');
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      UUID: expect.stringMatching(/^[0-9a-f-]{36}$/),
      allow_generate_key: true,
      allow_replace_key: false,
      allow_store_key: false,
      any_mount: false,
      curve: '',
      force_rw_session: false,
      key_bits: 2048,
      key_id: '',
      key_label: 'rsa-signing',
      library: 'softhsm',
      max_parallel: 1,
      mechanism: 1,
      name: 'hsm-rsa',
      pin: 'redacted',
      slot: 0,
      token_label: 'mk-token',
      type: 'pkcs11',
    });
    expect(read.text).not.toContain(`"${PIN}"`);
    expect((await list(server, 'sys/managed-keys/pkcs11')).body.data.keys).toEqual(['hsm-rsa']);
  });

  it('test/sign generates an RSA key in the token, and a second configuration finds it without generating', async () => {
    expect((await testSign('hsm-rsa')).status).toBe(204);
    const existing = { ...rsaKey, allow_generate_key: 'false', slot, token_label: undefined };
    expect((await write('hsm-rsa-existing', existing)).status).toBe(204);
    expect((await testSign('hsm-rsa-existing')).status).toBe(204);
  });

  it('signs with ECDSA (P-256), RSA-PSS and SHA256-RSA-PKCS mechanisms', async () => {
    await write('hsm-ec', { ...rsaKey, mechanism: '0x1041', key_label: 'ec-signing', key_bits: undefined, curve: 'P256' });
    expect((await testSign('hsm-ec')).status).toBe(204);
    await write('hsm-pss', { ...rsaKey, mechanism: '0x000D', key_label: 'pss-signing' });
    expect((await testSign('hsm-pss')).status).toBe(204);
    await write('hsm-sha256', { ...rsaKey, mechanism: '0x0040', key_label: 'pss-signing', allow_generate_key: false });
    expect((await testSign('hsm-sha256')).status).toBe(204);
  });

  it('answers backend failures with 400 and the reason', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['bad-pin', { ...rsaKey, pin: '0000' }, /CKR_PIN_INCORRECT/],
      ['no-token', { ...rsaKey, token_label: 'absent' }, /no token labelled "absent"/],
      ['no-slot', { ...rsaKey, token_label: undefined, slot: '4242' }, /no token in slot 4242/],
      ['no-key-id', { ...rsaKey, key_label: undefined, key_id: '0xdeadbeef' }, /key id deadbeef not found/],
      ['no-generate', { ...rsaKey, key_label: 'never-made', allow_generate_key: 'false' }, /not found and allow_generate_key is false/],
      ['oaep', { ...rsaKey, mechanism: '0x0009' }, /cannot sign/],
      ['no-library', { ...rsaKey, library: 'missing' }, /cannot load the PKCS#11 library/],
    ];
    for (const [name, body, reason] of cases) {
      expect((await write(name, body)).status, name).toBe(204);
      const reply = await testSign(name);
      expect(reply.status, name).toBe(400);
      expect(reply.body.errors[0], name).toMatch(reason);
    }
  });

  it('validates every parameter rule on create', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...rsaKey, library: 'nope' }, /unknown library "nope"/],
      [{ ...rsaKey, library: undefined }, /library is required/],
      [{ ...rsaKey, mechanism: '1' }, /hexadecimal string prefixed 0x/],
      [{ ...rsaKey, pin: undefined }, /pin is required/],
      [{ ...rsaKey, key_label: undefined }, /key_label or key_id is required/],
      [{ ...rsaKey, token_label: undefined }, /slot or token_label is required/],
      [{ ...rsaKey, token_label: undefined, slot: '0x10' }, /convert the hexadecimal slot 0x10 to decimal/],
      [{ ...rsaKey, key_bits: '1024' }, /key_bits must be one of 2048, 3072, 4096/],
      [{ ...rsaKey, key_bits: undefined }, /key_bits is required when allow_generate_key/],
      [{ ...rsaKey, mechanism: '0x1041', key_bits: undefined }, /curve is required when allow_generate_key/],
      [{ ...rsaKey, mechanism: '0x1041', curve: 'P192' }, /curve must be one of P256, P384, P521/],
      [{ ...rsaKey, allow_generate_key: 'maybe' }, /error converting input "maybe" for field "allow_generate_key"/],
      [{ ...rsaKey, max_parallel: 0 }, /max_parallel must be at least 1/],
    ];
    for (const [body, message] of cases) {
      const reply = await write('invalid', body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.errors[0]).toMatch(message);
    }
    expect((await v1(server, 'GET', 'sys/managed-keys/pkcs11/invalid')).status).toBe(404);
    const upper = await write('Upper', rsaKey);
    expect(upper.status).toBe(400);
    expect(upper.body.errors[0]).toMatch(/lowercase/);
    expect((await list(server, 'sys/managed-keys/gcpckms')).status).toBe(400);
  });

  it('updates keep the settings not given, and the PIN is still used', async () => {
    expect((await write('hsm-rsa', { max_parallel: 3 })).status).toBe(204);
    const read = (await v1(server, 'GET', 'sys/managed-keys/pkcs11/hsm-rsa')).body.data;
    expect(read).toMatchObject({ max_parallel: 3, key_label: 'rsa-signing', mechanism: 1 });
    const signs = await Promise.all(Array.from({ length: 6 }, () => testSign('hsm-rsa')));
    expect(
      signs.map((reply) => reply.status),
      JSON.stringify(signs.map((reply) => reply.body)),
    ).toEqual([204, 204, 204, 204, 204, 204]);
  });

  it('honours a changed configuration at the next test/sign, and a deleted key signs no more', async () => {
    const ec = { ...rsaKey, mechanism: '0x1041', key_label: 'ec-changing', key_bits: undefined, curve: 'P256' };
    expect((await write('hsm-changing', ec)).status).toBe(204);
    expect((await testSign('hsm-changing')).status).toBe(204);
    expect((await testSign('hsm-changing')).status).toBe(204);

    await write('hsm-changing', { pin: '0000' });
    const badPin = await testSign('hsm-changing');
    expect(badPin.status).toBe(400);
    expect(badPin.body.errors[0]).toMatch(/CKR_PIN_INCORRECT/);
    await write('hsm-changing', { pin: PIN });
    expect((await testSign('hsm-changing')).status).toBe(204);

    await write('hsm-changing', { key_label: 'ec-never-made', allow_generate_key: false });
    const missing = await testSign('hsm-changing');
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatch(/key labelled "ec-never-made" not found/);
    await write('hsm-changing', { key_label: 'ec-changing' });
    expect((await testSign('hsm-changing')).status).toBe(204);

    expect((await v1(server, 'DELETE', 'sys/managed-keys/pkcs11/hsm-changing')).status).toBe(204);
    expect((await testSign('hsm-changing')).status).toBe(404);
  });

  it('keeps the event loop free while the token generates a key', async () => {
    // RSA-3072: its generation outlasts a health request by far, and stays well inside the test's
    // time on a loaded machine (RSA-4096 in SoftHSM took 22 s beside two CPU-bound processes).
    await write('hsm-rsa3072', { ...rsaKey, key_label: 'rsa-3072', key_bits: 3072 });
    let signed = false;
    // The request has reached the token once the adapter hands its worker thread the `open` that
    // generates the key: that message, not a pause, says the generation is under way.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the worker as `this`
    const original = Worker.prototype.postMessage;
    const post = vi.spyOn(Worker.prototype, 'postMessage');
    const handedOver = new Promise<void>((resolve) =>
      post.mockImplementation(function (this: Worker, ...args: Parameters<Worker['postMessage']>) {
        original.apply(this, args);
        if ((args[0] as { op?: string } | null)?.op !== 'open') return;
        post.mockRestore();
        resolve();
      }),
    );
    const signing = testSign('hsm-rsa3072').then((reply) => {
      signed = true;
      return reply;
    });
    await handedOver;
    const health = await fetch(`${server.baseUrl}/_emulator/health`);
    // Answered while the generation was still under way: the order of the two answers, no timer.
    const signedBeforeHealth = signed;
    expect(health.status).toBe(200);
    expect(signedBeforeHealth).toBe(false);
    expect((await signing).status).toBe(204);
  });

  it('lets a mount use a key only with any_mount or allowed_managed_keys, and refuses deleting a listed key', async () => {
    const context = buildSecretsContext(server.app.runtime, ENGINES, () => server.baseUrl);
    // The mount as an engine sees it on each request: re-read after every tune.
    const mount = () => ({ path: 'pki/', config: context.mounts.get('pki/')?.config ?? {} });
    await expect(context.managedKeys.signerFor({ name: 'hsm-ec' }, mount())).rejects.toThrow(/not allowed on mount pki\//);

    expect((await v1(server, 'POST', 'sys/mounts/pki/tune', { body: { allowed_managed_keys: ['hsm-ec'] } })).status).toBe(204);
    const signer = await context.managedKeys.signerFor({ name: 'hsm-ec' }, mount());
    const data = Buffer.from('tbs certificate bytes');
    expect(verifySignature(signer, data, await signer.sign(data))).toBe(true);
    expect(signer.algorithm).toEqual({ key: 'ec', hash: 'sha256' });
    const byId = await context.managedKeys.signerFor({ id: signer.uuid }, mount());
    expect(byId.name).toBe('hsm-ec');

    const refused = await v1(server, 'DELETE', 'sys/managed-keys/pkcs11/hsm-ec');
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatch(/allowed_managed_keys of mount pki\//);
    expect((await v1(server, 'GET', 'sys/managed-keys/pkcs11/hsm-ec')).status).toBe(200);

    await expect(context.managedKeys.signerFor({ name: 'hsm-rsa' }, mount())).rejects.toThrow(/not allowed/);
    await write('hsm-rsa', { any_mount: 'true' });
    expect((await context.managedKeys.signerFor({ name: 'hsm-rsa' }, mount())).algorithm).toEqual({
      key: 'rsa',
      padding: 'pkcs1',
      hash: 'sha256',
    });

    await v1(server, 'POST', 'sys/mounts/pki/tune', { body: { allowed_managed_keys: [] } });
    expect((await v1(server, 'DELETE', 'sys/managed-keys/pkcs11/hsm-ec')).status).toBe(204);
    expect((await v1(server, 'GET', 'sys/managed-keys/pkcs11/hsm-ec')).status).toBe(404);
    await expect(context.managedKeys.signerFor({ id: signer.uuid }, mount())).rejects.toThrow(/no managed key found/);
  });
});
