import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';
import { generateRoot, mountPki, ok } from './support.js';

const caPem = async (server: TestServer, mount: string) => {
  const reply = await fetch(`${server.baseUrl}/v1/${mount}/ca/pem`);
  return { status: reply.status, text: await reply.text() };
};

describe('PKI root generation over an existing CA (spec dialect)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('refuses a second root with the real warning and keeps the first CA', async () => {
    await mountPki(server, 'once');
    const first = await generateRoot(server, 'once', { common_name: 'First', key_type: 'ec' });
    const second = await v1(server, 'POST', 'once/root/generate/internal', { body: { common_name: 'Second', key_type: 'ec' } });
    expect(second.status, second.text).toBe(200);
    expect(second.body.data).toBeNull();
    expect(second.body.warnings).toEqual([
      'Refusing to generate a root certificate over an existing root certificate. ' +
        'If you really want to destroy the original root certificate, please issue a delete against once/ root.',
    ]);
    const ca = await caPem(server, 'once');
    expect(new X509Certificate(ca.text).subject).toBe(new X509Certificate(first.certificate ?? '').subject);
    expect((await ok(server, 'LIST', 'once/issuers')).body.data.keys).toHaveLength(1);
  });

  it('after DELETE root, a new root becomes the CA that ca/pem serves', async () => {
    await mountPki(server, 'again');
    await generateRoot(server, 'again', { common_name: 'Old', key_type: 'ec' });
    expect((await v1(server, 'DELETE', 'again/root')).status).toBeLessThan(300);
    const fresh = await generateRoot(server, 'again', { common_name: 'New', key_type: 'ec' });
    const ca = await caPem(server, 'again');
    expect(ca.status).toBe(200);
    expect(new X509Certificate(ca.text).fingerprint256).toBe(new X509Certificate(fresh.certificate ?? '').fingerprint256);
  });
});

describe('PKI root generation over an existing CA (upstream dialect)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_DIALECT: 'upstream' });
  });
  afterAll(() => server.close());

  it('adds the second root as another issuer, as the multi-issuer service does', async () => {
    await mountPki(server, 'multi');
    const first = await generateRoot(server, 'multi', { common_name: 'First', key_type: 'ec' });
    const second = await generateRoot(server, 'multi', { common_name: 'Second', key_type: 'ec' });
    expect(second.issuer_id).not.toBe(first.issuer_id);
    expect((await ok(server, 'LIST', 'multi/issuers')).body.data.keys).toHaveLength(2);
    // The first stays the default.
    const ca = await caPem(server, 'multi');
    expect(new X509Certificate(ca.text).fingerprint256).toBe(new X509Certificate(first.certificate ?? '').fingerprint256);
  });
});
