import { X509Certificate, generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';
import { generateRoot, mountPki, ok } from './support.js';

/** Malformed input to every writing PKI path: a 4xx with a message, never a 5xx, nothing changed. */
const GARBAGE_PEM = '-----BEGIN CERTIFICATE-----\nAAAAAAAAAAAA\n-----END CERTIFICATE-----';
const GARBAGE_CSR = '-----BEGIN CERTIFICATE REQUEST-----\nAAAAAAAAAAAA\n-----END CERTIFICATE REQUEST-----';

const GOOD_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;

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
  [
    'issuers/generate/root/internal',
    { common_name: 'many', alt_names: Array.from({ length: 20_000 }, (_, index) => `h${index}.test`).join(',') },
  ],
  ['issue/web', { common_name: 'a.example.com', alt_names: Array.from({ length: 1001 }, (_, index) => `h${index}.example.com`).join(',') }],
  ['issue/web', { common_name: '\ud800.example.com' }],
  ['issuer/default', { leaf_not_after_behavior: 'sometimes' }],
  ['issuer/default', { usage: 'everything' }],
  ['issuer/nope', { issuer_name: 'x' }],
  ['issuer/default', { issuer_name: 'default' }],
  ['issuer/default', { issuer_name: 'bad name!' }],
  ['issuer/default', { manual_chain: 'nope' }],
  ['key/default', { key_name: 'bad name!' }],
  ['key/nope', { key_name: 'x' }],
  ['keys/generate/internal', { key_type: 'ec', key_bits: 7 }],
  ['keys/generate/bogus', {}],
  ['keys/import', { pem_bundle: 'nothing' }],
  ['keys/import', { pem_bundle: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' }],
  ['issuers/import/bundle', { pem_bundle: GARBAGE_PEM }],
  ['issuers/import/cert', { pem_bundle: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' }],
  ['issuers/generate/root/existing', { common_name: 'x', key_ref: 'nope' }],
  ['issuer/default/issue/nope', { common_name: 'a.example.com' }],
  ['issuer/nope/issue/web', { common_name: 'a.example.com' }],
  ['config/issuers', { default: 'nope' }],
  // A good key, then one that does not parse: neither is imported.
  ['issuers/import/bundle', { pem_bundle: `${GOOD_KEY}\n-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----` }],
  ['config/keys', { default: 'nope' }],
  ['root/replace', { default_ref: 'nope' }],
  ['roles/bad', { issuer_ref: 'nope' }],
];

describe('PKI refuses malformed input cleanly', () => {
  it('a lone surrogate reads as U+FFFD (as the real JSON decoder makes it), not a 500', async () => {
    await mountPki(server, 'pki-utf');
    const made = await ok(server, 'POST', 'pki-utf/root/generate/internal', {
      common_name: 'Odd \ud800 Root',
      organization: '\udc00',
      key_type: 'ec',
    });
    expect(new X509Certificate(made.body.data.certificate).subject).toBe('O=\ufffd\nCN=Odd \ufffd Root');
    // An alt name that is no host name once decoded is left out, as upstream.
    await ok(server, 'POST', 'pki-utf/roles/any', { allow_any_name: true, key_type: 'ec' });
    const leaf = await ok(server, 'POST', 'pki-utf/issue/any', { common_name: 'a.test', alt_names: 'b\udc00.test', ttl: '1h' });
    expect(new X509Certificate(leaf.body.data.certificate).subjectAltName).toBe('DNS:a.test');
  });

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
    const state = async () => [
      (await v1(server, 'GET', 'pki-m/keys?list=true')).body.data as unknown,
      (await v1(server, 'GET', 'pki-m/issuers?list=true')).body.data as unknown,
    ];
    const stateBefore = await state();
    const reply = await v1(server, 'POST', `pki-m/${path}`, { body });
    expect(reply.status, reply.text).toBeGreaterThanOrEqual(400);
    expect(reply.status, reply.text).toBeLessThan(500);
    expect(reply.body.errors[0]).toEqual(expect.any(String));
    expect(await (await fetch(`${server.baseUrl}/v1/pki-m/ca/pem`)).text()).toBe(caBefore);
    expect(await state()).toEqual(stateBefore);
  });
});
