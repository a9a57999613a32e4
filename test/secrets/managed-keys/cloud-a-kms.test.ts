import { createServer, type Server } from 'node:http';
import { constants, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import {
  CreateKeyCommand,
  DescribeKeyCommand,
  GetPublicKeyCommand,
  KMSClient,
  ListAliasesCommand,
  NotFoundException,
  SignCommand,
} from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { list, v1 } from '../core/client.js';

const credentials = { access_key: 'AKIDSTANDIN', secret_key: 'stand-in-secret' };

describe('managed keys: cloud-a-kms through the real SDK client', () => {
  let server: TestServer;
  let kms: KMSClient;
  beforeAll(async () => {
    server = await startServer();
    kms = new KMSClient({
      region: 'us-east-1',
      endpoint: `${server.baseUrl}/_emulator/cloud-a-kms`,
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'x' },
      maxAttempts: 1,
    });
  });
  afterAll(() => server.close());

  const write = (name: string, body: Record<string, unknown>) => v1(server, 'POST', `sys/managed-keys/cloud-a-kms/${name}`, { body });
  const testSign = (name: string, type = 'cloud-a-kms') => v1(server, 'POST', `sys/managed-keys/${type}/${name}/test/sign`);

  it('generates an RSA key with its alias in the stand-in on test/sign, and reads back with secrets masked', async () => {
    expect(
      (
        await write('kms-rsa', {
          ...credentials,
          key_type: 'rsa',
          key_bits: '2048',
          kms_key: 'alias/understudy-rsa',
          allow_generate_key: true,
        })
      ).status,
    ).toBe(204);
    const read = await v1(server, 'GET', 'sys/managed-keys/cloud-a-kms/kms-rsa');
    expect(read.body.data).toEqual({
      UUID: expect.any(String),
      access_key: 'redacted',
      secret_key: 'redacted',
      allow_generate_key: true,
      allow_replace_key: false,
      allow_store_key: false,
      any_mount: false,
      curve: '',
      endpoint: '',
      key_bits: 2048,
      key_type: 'RSA',
      kms_key: 'alias/understudy-rsa',
      name: 'kms-rsa',
      region: 'us-east-1',
      type: 'cloud-a-kms',
    });
    expect(read.text).not.toContain('stand-in-secret');
    await expect(kms.send(new DescribeKeyCommand({ KeyId: 'alias/understudy-rsa' }))).rejects.toBeInstanceOf(NotFoundException);

    expect((await testSign('kms-rsa')).status).toBe(204);
    const described = await kms.send(new DescribeKeyCommand({ KeyId: 'alias/understudy-rsa' }));
    expect(described.KeyMetadata).toMatchObject({ KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY', KeyState: 'Enabled' });
    // A second test/sign finds the key instead of making another.
    expect((await testSign('kms-rsa')).status).toBe(204);
    const aliases = (await kms.send(new ListAliasesCommand({}))).Aliases ?? [];
    expect(aliases.map((alias) => alias.AliasName)).toEqual(['alias/understudy-rsa']);
  });

  it('generates and signs with ECDSA P-256, and the stand-in signature verifies with the public key', async () => {
    expect(
      (
        await write('kms-ec', {
          ...credentials,
          key_type: 'ECDSA',
          curve: 'P256',
          kms_key: 'alias/understudy-ec',
          allow_generate_key: 'true',
        })
      ).status,
    ).toBe(204);
    expect((await testSign('kms-ec')).status).toBe(204);
    const publicKey = await kms.send(new GetPublicKeyCommand({ KeyId: 'alias/understudy-ec' }));
    expect(publicKey.KeySpec).toBe('ECC_NIST_P256');
    const key = createPublicKey({ key: Buffer.from(publicKey.PublicKey ?? []), format: 'der', type: 'spki' });
    const message = Buffer.from('hello');
    const signed = await kms.send(
      new SignCommand({ KeyId: 'alias/understudy-ec', Message: message, MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' }),
    );
    expect(verify('sha256', message, key, Buffer.from(signed.Signature ?? []))).toBe(true);
  });

  it('uses an existing key by id without generation, and refuses a missing one with the service reason', async () => {
    const created = await kms.send(new CreateKeyCommand({ KeySpec: 'RSA_3072', KeyUsage: 'SIGN_VERIFY' }));
    await write('kms-existing', { ...credentials, key_type: 'RSA', key_bits: 3072, kms_key: created.KeyMetadata?.Arn });
    expect((await testSign('kms-existing')).status).toBe(204);

    await write('kms-missing', { ...credentials, key_type: 'RSA', key_bits: 2048, kms_key: 'alias/not-there' });
    const missing = await testSign('kms-missing');
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatch(/NotFoundException: Alias alias\/not-there is not found/);

    await write('kms-unreachable', { ...credentials, key_type: 'RSA', key_bits: 2048, kms_key: 'alias/x', endpoint: 'http://127.0.0.1:9' });
    const unreachable = await testSign('kms-unreachable');
    expect(unreachable.status).toBe(400);
    expect(unreachable.body.errors[0]).toMatch(/ECONNREFUSED/);
  });

  it('validates the parameters', async () => {
    const base = { ...credentials, key_type: 'RSA', key_bits: 2048, kms_key: 'alias/k' };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...base, access_key: undefined }, /access_key is required/],
      [{ ...base, key_type: 'DSA' }, /key_type must be RSA or ECDSA/],
      [{ ...base, key_bits: undefined }, /key_bits is required when key_type is RSA/],
      [{ ...base, key_bits: 1024 }, /key_bits must be one of/],
      [{ ...base, key_type: 'ECDSA', key_bits: undefined, allow_generate_key: true }, /curve is required/],
      [{ ...base, kms_key: undefined }, /kms_key is required/],
      [{ ...base, kms_key: '1234abcd-12ab', allow_generate_key: true }, /must be an alias/],
      [{ ...base, endpoint: 'ftp://x' }, /endpoint must be an http or https URL/],
    ];
    for (const [body, message] of cases) {
      const reply = await write('kms-invalid', body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.errors[0]).toMatch(message);
    }
  });

  it('keeps names unique across types and accepts the real type name', async () => {
    const clash = await v1(server, 'POST', 'sys/managed-keys/pkcs11/kms-rsa', {
      body: { library: 'softhsm', mechanism: '0x1', pin: '1', key_label: 'x', slot: '1' },
    });
    expect(clash.status).toBe(400);
    expect(clash.body.errors[0]).toMatch(/"kms-rsa" already exists with type cloud-a-kms/);
    expect((await list(server, 'sys/managed-keys/awskms')).body.data.keys).toEqual([
      'kms-ec',
      'kms-existing',
      'kms-missing',
      'kms-rsa',
      'kms-unreachable',
    ]);
    expect((await testSign('kms-ec', 'awskms')).status).toBe(204);
  });

  it('keeps the stand-in keys and the managed keys in the store, which a reset returns to the seed', async () => {
    const stored = server.app.runtime.store.db.all<{ mount_uuid: string; n: number }>(
      "SELECT mount_uuid, count(*) AS n FROM secret_entries WHERE mount_uuid IN ('stand-in-cloud-a-kms', 'builtin-system') GROUP BY mount_uuid ORDER BY mount_uuid",
    );
    expect(stored.map((row) => row.mount_uuid)).toEqual(['builtin-system', 'stand-in-cloud-a-kms']);
    expect((await fetch(`${server.baseUrl}/_emulator/reset`, { method: 'POST' })).status).toBe(200);
    await expect(kms.send(new DescribeKeyCommand({ KeyId: 'alias/understudy-ec' }))).rejects.toBeInstanceOf(NotFoundException);
    expect((await list(server, 'sys/managed-keys/cloud-a-kms')).status).toBe(404);
  });
});

describe('managed keys: the cloud-a stand-in with a guarded control plane', () => {
  it('still answers its own protocol, and only root-capable tokens manage keys', async () => {
    const server = await startServer({ UNDERSTUDY_CONTROL_TOKEN: 'control-secret' });
    try {
      expect((await fetch(`${server.baseUrl}/_emulator/info`)).status).toBe(401);
      const body = { ...credentials, key_type: 'ECDSA', curve: 'P384', kms_key: 'alias/guarded', allow_generate_key: true };
      expect((await v1(server, 'POST', 'sys/managed-keys/cloud-a-kms/guarded', { body, token: null })).status).toBe(403);
      expect((await v1(server, 'POST', 'sys/managed-keys/nonsense/guarded', { body, token: null })).status).toBe(403);
      expect((await v1(server, 'POST', 'sys/managed-keys/cloud-a-kms/guarded', { body })).status).toBe(204);
      expect((await v1(server, 'POST', 'sys/managed-keys/cloud-a-kms/guarded/test/sign')).status).toBe(204);
    } finally {
      await server.close();
    }
  });
});

describe('managed keys: cloud-a-kms against an independent fake of the service', () => {
  let server: TestServer;
  let fake: Server;
  const seen: string[] = [];
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyArn = 'arn:aws:kms:eu-west-1:111122223333:key/fake-key';

  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_DIALECT: 'upstream' });
    // Written from the protocol description, sharing no code with the built-in stand-in.
    fake = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        const target = String(request.headers['x-amz-target']);
        seen.push(`${target} ${/Credential=[^/]+\/\d+\/([^/]+)\//.exec(String(request.headers.authorization))?.[1]}`);
        const body = JSON.parse(text) as { KeyId: string; Message?: string };
        response.setHeader('content-type', 'application/x-amz-json-1.1');
        if (body.KeyId !== 'alias/fake' && body.KeyId !== keyArn) {
          response.statusCode = 400;
          response.end(JSON.stringify({ __type: 'com.amazonaws.kms#NotFoundException', message: 'no such key' }));
          return;
        }
        if (target === 'TrentService.DescribeKey')
          response.end(JSON.stringify({ KeyMetadata: { KeyId: keyArn, Arn: keyArn, KeyUsage: 'SIGN_VERIFY', KeySpec: 'RSA_2048' } }));
        else if (target === 'TrentService.GetPublicKey') {
          response.end(
            JSON.stringify({
              KeyId: keyArn,
              KeyUsage: 'SIGN_VERIFY',
              KeySpec: 'RSA_2048',
              PublicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
            }),
          );
        } else if (target === 'TrentService.Sign') {
          const signature = sign('sha256', Buffer.from(body.Message ?? '', 'base64'), {
            key: privateKey,
            padding: constants.RSA_PKCS1_PADDING,
          });
          response.end(
            JSON.stringify({ KeyId: keyArn, Signature: signature.toString('base64'), SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256' }),
          );
        } else {
          response.statusCode = 400;
          response.end(JSON.stringify({ __type: 'UnknownOperationException', message: target }));
        }
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await server.close();
    await new Promise((resolve) => fake.close(resolve));
  });

  it('test/sign talks the service protocol to a configured endpoint and region', async () => {
    const { port } = fake.address() as { port: number };
    const body = {
      ...credentials,
      key_type: 'RSA',
      key_bits: 2048,
      kms_key: 'alias/fake',
      endpoint: `http://127.0.0.1:${port}`,
      region: 'eu-west-1',
    };
    expect((await v1(server, 'POST', 'sys/managed-keys/awskms/fake-kms', { body })).status).toBe(204);
    expect((await v1(server, 'POST', 'sys/managed-keys/awskms/fake-kms/test/sign')).status).toBe(204);
    expect(seen).toEqual(['TrentService.DescribeKey eu-west-1', 'TrentService.GetPublicKey eu-west-1', 'TrentService.Sign eu-west-1']);
    expect((await v1(server, 'GET', 'sys/managed-keys/cloud-a-kms/fake-kms')).body.data.type).toBe('awskms');

    await v1(server, 'POST', 'sys/managed-keys/awskms/fake-missing', { body: { ...body, kms_key: 'alias/other' } });
    const missing = await v1(server, 'POST', 'sys/managed-keys/awskms/fake-missing/test/sign');
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatch(/NotFoundException: no such key/);
  });
});
