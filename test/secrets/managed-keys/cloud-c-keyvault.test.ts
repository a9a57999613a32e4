import { createServer, type Server } from 'node:http';
import { constants, generateKeyPairSync, privateEncrypt } from 'node:crypto';
import { KeyClient } from '@azure/keyvault-keys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { list, v1 } from '../core/client.js';

const identity = { tenant_id: 'tenant-1', client_id: 'app-1', client_secret: 'app-secret' };

describe('managed keys: cloud-c-keyvault through the real SDK clients', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const write = (name: string, body: Record<string, unknown>) => v1(server, 'POST', `sys/managed-keys/cloud-c-keyvault/${name}`, { body });
  const testSign = (name: string, type = 'cloud-c-keyvault') => v1(server, 'POST', `sys/managed-keys/${type}/${name}/test/sign`);

  /** The SDK's KeyClient against the stand-in, with a token from the stand-in's token service. */
  const keyClient = () =>
    new KeyClient(
      server.baseUrl,
      {
        getToken: async () => {
          const response = await fetch(`${server.baseUrl}/_emulator/cloud-c-keyvault/t/oauth2/v2.0/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=client_credentials&client_id=a&client_secret=b&scope=x',
          });
          const body = (await response.json()) as { access_token: string };
          return { token: body.access_token, expiresOnTimestamp: Date.now() + 60_000 };
        },
      },
      { disableChallengeResourceVerification: true, allowInsecureConnection: true },
    );

  it('generates the key in the stand-in on test/sign, signs and verifies; secrets are masked on read', async () => {
    const body = {
      ...identity,
      vault_name: 'team-vault',
      key_name: 'signing',
      key_type: 'rsa',
      key_bits: 2048,
      allow_generate_key: 'true',
    };
    expect((await write('akv-rsa', body)).status).toBe(204);
    const read = await v1(server, 'GET', 'sys/managed-keys/cloud-c-keyvault/akv-rsa');
    expect(read.body.data).toEqual({
      UUID: expect.any(String),
      allow_generate_key: true,
      allow_replace_key: false,
      allow_store_key: false,
      any_mount: false,
      client_id: 'app-1',
      client_secret: 'redacted',
      environment: '',
      key_bits: 2048,
      key_name: 'signing',
      key_type: 'RSA',
      name: 'akv-rsa',
      resource: '',
      tenant_id: 'tenant-1',
      type: 'cloud-c-keyvault',
      vault_name: 'team-vault',
    });
    expect(read.text).not.toContain('app-secret');
    await expect(keyClient().getKey('signing')).rejects.toMatchObject({ statusCode: 404 });

    expect((await testSign('akv-rsa')).status).toBe(204);
    const key = await keyClient().getKey('signing');
    expect(key.keyType).toBe('RSA');
    expect(key.key?.n?.length).toBe(256);
    // Found, not generated again.
    expect((await testSign('akv-rsa', 'azurekeyvault')).status).toBe(204);
    expect((await keyClient().getKey('signing')).properties.version).toBe(key.properties.version);
  });

  it('answers an unauthenticated vault request with the bearer challenge', async () => {
    const reply = await fetch(`${server.baseUrl}/keys/signing/?api-version=2025-07-01`);
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toMatch(
      /^Bearer authorization="http:\/\/127\.0\.0\.1:\d+\/_emulator\/cloud-c-keyvault\/understudy", resource="https:\/\/vault\.azure\.net"$/,
    );
  });

  it('refuses a missing key without generation, with the vault reason', async () => {
    await write('akv-missing', { ...identity, vault_name: 'v', key_name: 'absent', key_type: 'RSA' });
    const reply = await testSign('akv-missing');
    expect(reply.status).toBe(400);
    expect(reply.body.errors[0]).toMatch(/KeyNotFound: A key with \(name\/id\) absent was not found/);
  });

  it('validates the parameters', async () => {
    const base = { ...identity, vault_name: 'v', key_name: 'k', key_type: 'RSA' };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...base, tenant_id: undefined }, /tenant_id is required/],
      [{ ...base, client_secret: undefined }, /client_id and client_secret go together/],
      [{ ...base, vault_name: undefined }, /vault_name is required/],
      [{ ...base, key_name: undefined }, /key_name is required/],
      [{ ...base, key_type: 'EC' }, /key_type must be RSA/],
      [{ ...base, allow_generate_key: true }, /key_bits is required/],
      [{ ...base, environment: 'Mars' }, /environment must be one of/],
    ];
    for (const [body, message] of cases) {
      const reply = await write('akv-invalid', body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.errors[0]).toMatch(message);
    }
    expect((await list(server, 'sys/managed-keys/azurekeyvault')).body.data.keys).toEqual(['akv-missing', 'akv-rsa']);
  });
});

describe('managed keys: cloud-c-keyvault against an independent fake of the service', () => {
  let server: TestServer;
  let fake: Server;
  const seen: string[] = [];
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

  beforeAll(async () => {
    server = await startServer();
    // Written from the REST API description, sharing no code with the built-in stand-in.
    fake = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        const path = (request.url ?? '').split('?')[0] ?? '';
        const origin = `http://${request.headers.host}`;
        seen.push(`${request.method} ${path} ${request.headers.authorization ? 'token' : '-'}`);
        response.setHeader('content-type', 'application/json');
        if (path === '/tenant-1/oauth2/v2.0/token') {
          response.end(JSON.stringify({ access_token: 'fake-token', expires_in: 600, token_type: 'Bearer' }));
          return;
        }
        if (request.headers.authorization !== 'Bearer fake-token') {
          response.statusCode = 401;
          response.setHeader('www-authenticate', `Bearer authorization="${origin}/tenant-1", resource="https://vault.azure.net"`);
          response.end('{"error":{"code":"Unauthorized","message":"no token"}}');
          return;
        }
        const jwk = publicKey.export({ format: 'jwk' });
        const keyBundle = {
          key: { kid: `${origin}/keys/fake-key/v1`, kty: 'RSA', key_ops: ['sign'], n: jwk.n, e: jwk.e },
          attributes: { enabled: true },
        };
        if (request.method === 'GET' && /^\/keys\/fake-key(\/|\/v1)?$/.test(path)) response.end(JSON.stringify(keyBundle));
        else if (request.method === 'POST' && path === '/keys/fake-key/v1/sign') {
          const { value } = JSON.parse(text) as { value: string };
          const digestInfo = Buffer.concat([Buffer.from('3031300d060960864801650304020105000420', 'hex'), Buffer.from(value, 'base64url')]);
          const signature = privateEncrypt({ key: privateKey, padding: constants.RSA_PKCS1_PADDING }, digestInfo);
          response.end(JSON.stringify({ kid: keyBundle.key.kid, value: signature.toString('base64url') }));
        } else {
          response.statusCode = 404;
          response.end('{"error":{"code":"KeyNotFound","message":"not here"}}');
        }
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await server.close();
    await new Promise((resolve) => fake.close(resolve));
  });

  it('test/sign follows the challenge, gets a token, reads the key and signs with it', async () => {
    const { port } = fake.address() as { port: number };
    const body = { ...identity, vault_name: 'v', key_name: 'fake-key', key_type: 'RSA', environment: `http://127.0.0.1:${port}` };
    expect((await v1(server, 'POST', 'sys/managed-keys/azurekeyvault/fake-akv', { body })).status).toBe(204);
    const reply = await v1(server, 'POST', 'sys/managed-keys/azurekeyvault/fake-akv/test/sign');
    expect(reply.status, reply.text).toBe(204);
    expect(seen[0]).toBe('GET /keys/fake-key/ -');
    expect(seen).toContain('POST /tenant-1/oauth2/v2.0/token -');
    expect(seen.at(-1)).toBe('POST /keys/fake-key/v1/sign token');
  });
});
