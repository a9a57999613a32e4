import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';
import { generateRoot, mountPki, ok } from './support.js';

/** Malformed input to every writing PKI path: a 4xx with a message, never a 5xx, nothing changed. */
const GARBAGE_PEM = '-----BEGIN CERTIFICATE-----\nAAAAAAAAAAAA\n-----END CERTIFICATE-----';
const GARBAGE_CSR = '-----BEGIN CERTIFICATE REQUEST-----\nAAAAAAAAAAAA\n-----END CERTIFICATE REQUEST-----';

const BODIES: [string, unknown][] = [
  ['issue/web', { common_name: 'a.example.com', ttl: 'forever' }],
  ['issue/web', { common_name: 'a.example.com', not_after: 'tomorrow' }],
  ['issue/web', { common_name: 'a.example.com', ip_sans: { a: 1 } }],
  ['issue/web', { common_name: 'a.example.com', other_sans: 'nonsense' }],
  ['issue/web', { common_name: 'a.example.com', private_key_format: 'jwk' }],
  ['issue/web', { common_name: 'a.example.com', uri_sans: 'http://[bad' }],
  ['sign/web', { csr: GARBAGE_CSR }],
  ['sign/web', { csr: 12 }],
  ['sign-verbatim', { csr: '' }],
  ['root/sign-intermediate', { csr: GARBAGE_CSR, common_name: 'x' }],
  ['root/sign-self-issued', { certificate: GARBAGE_PEM }],
  ['intermediate/set-signed', { certificate: GARBAGE_PEM }],
  ['config/ca', { pem_bundle: `-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n${GARBAGE_PEM}` }],
  ['config/urls', { issuing_certificates: [{}] }],
  ['config/crl', { expiry: 'soon' }],
  ['roles/bad', { key_type: 'dsa' }],
  ['roles/bad', { ext_key_usage_oids: 'not-an-oid' }],
  ['revoke', { serial_number: ['x'] }],
  ['tidy', { safety_buffer: 'never' }],
  ['intermediate/generate/internal', { common_name: 'x', key_type: 'ec', key_bits: 1 }],
];

describe('PKI refuses malformed input cleanly', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    await mountPki(server, 'pki-m');
    await generateRoot(server, 'pki-m', { common_name: 'Malformed Root', key_type: 'ec' });
    await ok(server, 'POST', 'pki-m/roles/web', {
      allowed_domains: 'example.com',
      allow_subdomains: true,
      key_type: 'ec',
      allowed_uri_sans: '*',
    });
  });
  afterAll(() => server.close());

  it.each(BODIES)('POST %s %j', async (path, body) => {
    const caBefore = await (await fetch(`${server.baseUrl}/v1/pki-m/ca/pem`)).text();
    const reply = await v1(server, 'POST', `pki-m/${path}`, { body });
    expect(reply.status, reply.text).toBeGreaterThanOrEqual(400);
    expect(reply.status, reply.text).toBeLessThan(500);
    expect(reply.body.errors[0]).toEqual(expect.any(String));
    expect(await (await fetch(`${server.baseUrl}/v1/pki-m/ca/pem`)).text()).toBe(caBefore);
  });
});
