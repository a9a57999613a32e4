import { X509Certificate, createPrivateKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { advance, createToken, POLICY_DENIED, putPolicy, v1 } from '../core/client.js';
import { generateRoot, hasOpenssl, mountPki, ok, openssl, scratch } from './support.js';

/** The engine's endpoints beyond the main flow: reads, uploads, CSRs, formats, leases, tidy. */
describe('PKI endpoints', () => {
  let server: TestServer;
  let root: Record<string, string>;
  beforeAll(async () => {
    server = await startServer();
    await mountPki(server, 'pki-e');
    root = await generateRoot(server, 'pki-e', { common_name: 'Endpoints Root', key_type: 'ec', ttl: '2000h' });
    await ok(server, 'POST', 'pki-e/roles/web', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec' });
  });
  afterAll(() => server.close());

  it('serves the CA, chain, CRL and certificates without a token; everything else needs one', async () => {
    const der = await fetch(`${server.baseUrl}/v1/pki-e/ca`);
    expect(der.headers.get('content-type')).toBe('application/pkix-cert');
    expect(new X509Certificate(Buffer.from(await der.arrayBuffer())).toString().trim()).toBe(root.certificate);
    const pem = await fetch(`${server.baseUrl}/v1/pki-e/ca/pem`);
    expect(await pem.text()).toBe(`${root.certificate}\n`);
    const crl = await fetch(`${server.baseUrl}/v1/pki-e/crl`);
    expect(crl.headers.get('content-type')).toBe('application/pkix-crl');
    expect((await v1(server, 'GET', 'pki-e/cert/ca', { token: null })).body.data.certificate).toBe(root.certificate);
    expect((await v1(server, 'GET', 'pki-e/cert/crl', { token: null })).body.data.certificate).toMatch(/^-----BEGIN X509 CRL-----/);
    expect((await v1(server, 'GET', 'pki-e/cert/ca_chain', { token: null })).body.data.ca_chain).toBe(root.certificate);
    expect((await v1(server, 'GET', `pki-e/cert/${root.serial_number}`, { token: null })).body.data).toMatchObject({
      certificate: root.certificate,
      revocation_time: 0,
    });
    expect((await v1(server, 'GET', 'pki-e/cert/00:11', { token: null })).status).toBe(404);
    expect((await v1(server, 'GET', 'pki-e/certs?list=true', { token: null })).status).toBe(403);
    expect((await v1(server, 'POST', 'pki-e/issue/web', { token: null, body: { common_name: 'a.example.com' } })).status).toBe(403);
    const listed = (await ok(server, 'GET', 'pki-e/certs?list=true')).body.data.keys as string[];
    expect(listed).toContain(root.serial_number);
  });

  it('a second root (issuers/generate/root) is another issuer; the default and single-issuer paths stay on the first', async () => {
    await mountPki(server, 'pki-two');
    const first = await generateRoot(server, 'pki-two', { common_name: 'First', key_type: 'ec' });
    const again = (await ok(server, 'POST', 'pki-two/issuers/generate/root/internal', { common_name: 'Other', key_type: 'ec' })).body.data;
    expect(again.issuer_id).not.toBe(first.issuer_id);
    expect(again.key_id).not.toBe(first.key_id);
    expect((await ok(server, 'GET', 'pki-two/config/issuers')).body.data).toEqual({
      default: first.issuer_id,
      default_follows_latest_issuer: false,
    });
    expect(await (await fetch(`${server.baseUrl}/v1/pki-two/ca/pem`)).text()).toBe(`${first.certificate}\n`);
    expect(Object.keys((await ok(server, 'GET', 'pki-two/issuers?list=true')).body.data.key_info)).toHaveLength(2);
    const bad = await v1(server, 'POST', 'pki-e2/root/generate/bogus', { body: { common_name: 'x' } });
    expect(bad.status).toBe(404);
    await mountPki(server, 'pki-e2');
    const badType = await v1(server, 'POST', 'pki-e2/root/generate/bogus', { body: { common_name: 'x' } });
    expect(badType.body).toEqual({ errors: ['the "exported" path parameter must be "internal", "exported" or "kms"'] });
    const noCa = await v1(server, 'POST', 'pki-e2/roles/r', { body: { allow_any_name: true } });
    expect(noCa.status).toBe(204);
    const issue = await v1(server, 'POST', 'pki-e2/issue/r', { body: { common_name: 'x.test' } });
    expect(issue.body).toEqual({
      errors: ['could not fetch the CA certificate (was one set?): backend must be configured with a CA certificate/key'],
    });
  });

  it('returns exported keys in der/pkcs8 and PEM bundles, and DER certificates', async () => {
    await mountPki(server, 'pki-x');
    const exported = (
      await ok(server, 'POST', 'pki-x/root/generate/exported', {
        common_name: 'Exported',
        key_type: 'ec',
        format: 'pem_bundle',
        ttl: '100h',
      })
    ).body.data;
    expect(exported.private_key).toMatch(/^-----BEGIN EC PRIVATE KEY-----/);
    expect(exported.private_key_type).toBe('ec');
    expect(exported.certificate).toBe(`${exported.private_key}\n${exported.issuing_ca}`);
    await ok(server, 'POST', 'pki-x/roles/any', { allow_any_name: true, key_type: 'ec' });
    const der = (
      await ok(server, 'POST', 'pki-x/issue/any', { common_name: 'd.test', format: 'der', private_key_format: 'pkcs8', ttl: '1h' })
    ).body.data;
    const certificate = new X509Certificate(Buffer.from(der.certificate, 'base64'));
    expect(certificate.subject).toBe('CN=d.test');
    expect(createPrivateKey({ key: Buffer.from(der.private_key, 'base64'), format: 'der', type: 'pkcs8' }).asymmetricKeyType).toBe('ec');
    expect(
      certificate.checkPrivateKey(createPrivateKey({ key: Buffer.from(der.private_key, 'base64'), format: 'der', type: 'pkcs8' })),
    ).toBe(true);
    const badFormat = await v1(server, 'POST', 'pki-x/issue/any', { body: { common_name: 'd.test', format: 'pfx' } });
    expect(badFormat.body).toEqual({ errors: ['the "format" path parameter must be "pem", "der", or "pem_bundle"'] });
  });

  it('imports a CA upload as issuers and keys, pairing each certificate with the key it carries', async () => {
    await mountPki(server, 'pki-up');
    expect((await v1(server, 'POST', 'pki-up/config/ca', { body: { pem_bundle: '' } })).body).toEqual({
      errors: ["'pem_bundle' was empty"],
    });
    await mountPki(server, 'pki-up-cert');
    const certOnly = (await ok(server, 'POST', 'pki-up-cert/config/ca', { pem_bundle: root.certificate })).body.data;
    expect(certOnly.imported_issuers).toHaveLength(1);
    expect(certOnly.imported_keys).toBeNull();
    expect(Object.values(certOnly.mapping)).toEqual(['']);
    await ok(server, 'POST', 'pki-up-cert/roles/any', { allow_any_name: true, key_type: 'ec' });
    expect((await v1(server, 'POST', 'pki-up-cert/issue/any', { body: { common_name: 'x.test' } })).status).toBe(400);
    await mountPki(server, 'pki-src');
    const source = (await ok(server, 'POST', 'pki-src/root/generate/exported', { common_name: 'Uploaded', key_type: 'ec', ttl: '100h' }))
      .body.data;
    const other = (await ok(server, 'POST', 'pki-x/intermediate/generate/exported', { common_name: 'unrelated', key_type: 'ec' })).body
      .data;
    await mountPki(server, 'pki-up-apart');
    const apart = (await ok(server, 'POST', 'pki-up-apart/config/ca', { pem_bundle: `${other.private_key}\n${source.certificate}` })).body
      .data;
    expect(apart.imported_keys).toHaveLength(1);
    expect(Object.values(apart.mapping)).toEqual(['']);
    const paired = (await ok(server, 'POST', 'pki-up/config/ca', { pem_bundle: `${source.private_key}\n${source.certificate}` })).body.data;
    expect(paired.mapping).toEqual({ [paired.imported_issuers[0]]: paired.imported_keys[0] });
    const again = (await ok(server, 'POST', 'pki-up/config/ca', { pem_bundle: `${source.private_key}\n${source.certificate}` })).body.data;
    expect(again).toMatchObject({ imported_issuers: null, imported_keys: null, existing_issuers: paired.imported_issuers });
    expect(await (await fetch(`${server.baseUrl}/v1/pki-up/ca/pem`)).text()).toBe(`${source.certificate}\n`);
    await ok(server, 'POST', 'pki-up/roles/any', { allow_any_name: true, key_type: 'ec' });
    const issued = (await ok(server, 'POST', 'pki-up/issue/any', { common_name: 'u.test', ttl: '1h' })).body.data;
    expect(new X509Certificate(issued.certificate).verify(new X509Certificate(source.certificate).publicKey)).toBe(true);
  });

  it('deletes every issuer and key only with sudo, with the real warning; issuing stops', async () => {
    await mountPki(server, 'pki-del');
    const generated = await generateRoot(server, 'pki-del', { common_name: 'Doomed', key_type: 'ec' });
    await putPolicy(server, 'pki-admin', 'path "pki-del/*" { capabilities = ["create", "read", "update", "delete", "list"] }');
    const admin = await createToken(server, { policies: ['pki-admin'] });
    expect((await v1(server, 'DELETE', 'pki-del/root', { token: admin.client_token })).body).toEqual({ errors: POLICY_DENIED });
    const deleted = await v1(server, 'DELETE', 'pki-del/root', { token: ROOT_TOKEN });
    expect(deleted.body.warnings).toEqual([
      'DELETE /root deletes all keys and issuers; prefer the new DELETE /key/:key_ref and DELETE /issuer/:issuer_ref ' +
        'for finer granularity, unless removal of all keys and issuers is desired.',
    ]);
    expect((await fetch(`${server.baseUrl}/v1/pki-del/ca/pem`)).status).toBe(204);
    expect((await v1(server, 'GET', 'pki-del/issuers?list=true', { token: null })).status).toBe(404);
    expect((await v1(server, 'GET', 'pki-del/keys?list=true')).status).toBe(404);
    expect((await v1(server, 'GET', `pki-del/issuer/${generated.issuer_id}`)).status).toBe(400);
    await ok(server, 'POST', 'pki-del/roles/any', { allow_any_name: true, key_type: 'ec' });
    expect((await v1(server, 'POST', 'pki-del/issue/any', { body: { common_name: 'x.test' } })).status).toBe(400);
    const fresh = await generateRoot(server, 'pki-del', { common_name: 'Reborn', key_type: 'ec' });
    expect(fresh.certificate).not.toBe(generated.certificate);
  });

  it('revocation: errors, idempotence, and the CA itself', async () => {
    expect((await v1(server, 'POST', 'pki-e/revoke', { body: {} })).body).toEqual({ errors: ['The serial number must be provided'] });
    expect((await v1(server, 'POST', 'pki-e/revoke', { body: { serial_number: '01:02' } })).body).toEqual({
      errors: ['certificate with serial 01:02 not found'],
    });
    expect((await v1(server, 'POST', 'pki-e/revoke', { body: { serial_number: root.serial_number } })).body).toEqual({
      errors: ['adding CA to CRL is not allowed'],
    });
    const leaf = (await ok(server, 'POST', 'pki-e/issue/web', { common_name: 'r.example.com' })).body.data;
    const first = (await ok(server, 'POST', 'pki-e/revoke', { serial_number: leaf.serial_number })).body.data;
    // A second revoke a (virtual) while later keeps the first revocation time.
    await advance(server, '2s');
    const second = (await ok(server, 'POST', 'pki-e/revoke', { serial_number: leaf.serial_number })).body.data;
    expect(second).toEqual(first);
  });

  it('generate_lease ties a lease to the certificate: revoking the lease revokes it', async () => {
    await ok(server, 'POST', 'pki-e/roles/leased', {
      allowed_domains: 'example.com',
      allow_subdomains: true,
      key_type: 'ec',
      generate_lease: true,
    });
    const issued = await ok(server, 'POST', 'pki-e/issue/leased', { common_name: 'l.example.com', ttl: '1h' });
    expect(issued.body.lease_id).toMatch(/^pki-e\/issue\/leased\/[0-9A-Za-z]{24}$/);
    expect(issued.body.renewable).toBe(false);
    expect(issued.body.lease_duration).toBeGreaterThan(3500);
    await ok(server, 'PUT', 'sys/leases/revoke', { lease_id: issued.body.lease_id });
    const read = (await v1(server, 'GET', `pki-e/cert/${issued.body.data.serial_number}`, { token: null })).body.data;
    expect(read.revocation_time).toBeGreaterThan(0);
  });

  it('no_store certificates are neither listed nor revocable', async () => {
    await ok(server, 'POST', 'pki-e/roles/ephemeral', {
      allowed_domains: 'example.com',
      allow_subdomains: true,
      key_type: 'ec',
      no_store: true,
    });
    const issued = (await ok(server, 'POST', 'pki-e/issue/ephemeral', { common_name: 'n.example.com' })).body.data;
    const listed = (await ok(server, 'GET', 'pki-e/certs?list=true')).body.data.keys as string[];
    expect(listed).not.toContain(issued.serial_number);
    expect((await v1(server, 'POST', 'pki-e/revoke', { body: { serial_number: issued.serial_number } })).status).toBe(400);
  });

  it('URLs and CRL settings read back, 404 until set', async () => {
    await mountPki(server, 'pki-cfg');
    expect((await v1(server, 'GET', 'pki-cfg/config/urls')).status).toBe(404);
    expect((await v1(server, 'GET', 'pki-cfg/config/crl')).status).toBe(404);
    expect((await v1(server, 'POST', 'pki-cfg/config/urls', { body: { ocsp_servers: 'not a url' } })).body).toEqual({
      errors: ['invalid URL found in OCSP servers: not a url'],
    });
    await ok(server, 'POST', 'pki-cfg/config/urls', { issuing_certificates: 'http://a.test/ca,http://b.test/ca' });
    await ok(server, 'POST', 'pki-cfg/config/urls', { ocsp_servers: ['http://o.test'] });
    expect((await ok(server, 'GET', 'pki-cfg/config/urls')).body.data).toEqual({
      issuing_certificates: ['http://a.test/ca', 'http://b.test/ca'],
      crl_distribution_points: [],
      ocsp_servers: ['http://o.test'],
    });
    await ok(server, 'POST', 'pki-cfg/config/crl', { expiry: '24h' });
    expect((await ok(server, 'GET', 'pki-cfg/config/crl')).body.data).toEqual({ expiry: '24h', disable: false });
  });

  it.skipIf(!hasOpenssl)('CRL rotation, expiry and disable follow the configuration and the clock', async () => {
    await mountPki(server, 'pki-crl');
    await generateRoot(server, 'pki-crl', { common_name: 'CRL Root', key_type: 'ec' });
    await ok(server, 'POST', 'pki-crl/roles/any', { allow_any_name: true, key_type: 'ec' });
    const leaf = (await ok(server, 'POST', 'pki-crl/issue/any', { common_name: 'c.test' })).body.data;
    await ok(server, 'POST', 'pki-crl/revoke', { serial_number: leaf.serial_number });
    const serialHex = (leaf.serial_number as string).replace(/:/g, '').toUpperCase();
    const crlText = async () =>
      openssl(['crl', '-noout', '-text'], await (await fetch(`${server.baseUrl}/v1/pki-crl/crl/pem`)).text()).output;
    const before = await crlText();
    expect(before).toContain(serialHex);
    await ok(server, 'POST', 'pki-crl/config/crl', { expiry: '1h' });
    const rotated = await crlText();
    const [, last, next] = /Last Update: (.*)\n\s*Next Update: (.*)/.exec(rotated) ?? [];
    expect(Date.parse(next as string) - Date.parse(last as string)).toBe(3600_000);
    expect((await ok(server, 'GET', 'pki-crl/crl/rotate')).body.data).toEqual({ success: true });
    expect(/CRL Number: \s*(\d+)/.exec(await crlText())?.[1]).not.toBe(/CRL Number: \s*(\d+)/.exec(rotated)?.[1]);
    await ok(server, 'POST', 'pki-crl/config/crl', { disable: true });
    expect(await crlText()).not.toContain(serialHex);
  });

  it('tidy removes certificates and revocations past expiry plus the safety buffer, by the clock', async () => {
    await mountPki(server, 'pki-tidy');
    await generateRoot(server, 'pki-tidy', { common_name: 'Tidy Root', key_type: 'ec' });
    await ok(server, 'POST', 'pki-tidy/roles/short', { allow_any_name: true, key_type: 'ec', max_ttl: '1h' });
    const kept = (await ok(server, 'POST', 'pki-tidy/issue/short', { common_name: 'keep.test', ttl: '1h' })).body.data;
    await ok(server, 'POST', 'pki-tidy/roles/tiny', { allow_any_name: true, key_type: 'ec' });
    const expiring = (await ok(server, 'POST', 'pki-tidy/issue/tiny', { common_name: 'gone.test', ttl: '60s' })).body.data;
    const revoked = (await ok(server, 'POST', 'pki-tidy/issue/tiny', { common_name: 'revoked.test', ttl: '60s' })).body.data;
    await ok(server, 'POST', 'pki-tidy/revoke', { serial_number: revoked.serial_number });
    expect((await v1(server, 'POST', 'pki-tidy/tidy', { body: { safety_buffer: 0 } })).body).toEqual({
      errors: ['safety_buffer must be greater than zero'],
    });
    await advance(server, '20m');
    // Expired now: revoking it changes nothing (204).
    expect((await v1(server, 'POST', 'pki-tidy/revoke', { body: { serial_number: expiring.serial_number } })).status).toBe(204);
    const tidy = await v1(server, 'POST', 'pki-tidy/tidy', {
      body: { tidy_cert_store: true, tidy_revoked_certs: true, safety_buffer: '10m' },
    });
    expect(tidy.status).toBe(202);
    expect(tidy.body.warnings[0]).toMatch(/^Tidy operation successfully started/);
    const listed = (await ok(server, 'GET', 'pki-tidy/certs?list=true')).body.data.keys as string[];
    expect(listed).toContain(kept.serial_number);
    expect(listed).not.toContain(expiring.serial_number);
    expect(listed).not.toContain(revoked.serial_number);
    expect((await ok(server, 'GET', 'pki-tidy/tidy-status')).body.data).toMatchObject({
      state: 'Finished',
      cert_store_deleted_count: 1,
      revoked_cert_deleted_count: 1,
    });
  });

  it('registers no lease for a generated root, as the real service does', async () => {
    await mountPki(server, 'pki-life');
    const generated = await ok(server, 'POST', 'pki-life/root/generate/internal', { common_name: 'Short Root', key_type: 'ec', ttl: '2h' });
    expect(generated.body.lease_id).toBe('');
    const life = generated.body.data as { serial_number: string };
    const leases = await v1(server, 'GET', 'sys/leases/lookup/pki-life/root/generate/internal?list=true');
    expect(leases.status).toBe(404);
    const ran = await advance(server, '3h');
    expect(ran.some((work) => work.subject.startsWith('pki-life/'))).toBe(false);
    expect((await v1(server, 'GET', `pki-life/cert/${life.serial_number}`, { token: null })).body.data.revocation_time).toBe(0);
  });
});

describe.skipIf(!hasOpenssl && !process.env.CI)('PKI signing of CSRs', () => {
  let server: TestServer;
  const files = scratch();
  beforeAll(async () => {
    server = await startServer();
    await mountPki(server, 'pki-s');
    await generateRoot(server, 'pki-s', { common_name: 'Signing Root', key_type: 'ec', max_path_length: 1 });
  });
  afterAll(async () => {
    files.cleanup();
    await server.close();
  });

  function csr(subject: string, san: string, key = 'ec:P-256'): string {
    const [type, curve] = key.split(':');
    const args = [
      'req',
      '-new',
      '-nodes',
      '-keyout',
      files.path(`${Math.random()}.key`),
      '-subj',
      subject,
      '-addext',
      `subjectAltName=${san}`,
    ];
    args.push(...(type === 'ec' ? ['-newkey', 'ec', '-pkeyopt', `ec_paramgen_curve:${curve}`] : ['-newkey', `rsa:${curve}`]));
    const run = openssl(args);
    expect(run.status, run.output).toBe(0);
    return /-----BEGIN CERTIFICATE REQUEST-----[\s\S]+?-----END CERTIFICATE REQUEST-----/.exec(run.output)?.[0] as string;
  }

  it('use_csr_common_name and use_csr_sans take names from the CSR, checked by the role', async () => {
    await ok(server, 'POST', 'pki-s/roles/csr', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', key_bits: 256 });
    const signed = (await ok(server, 'POST', 'pki-s/sign/csr', { csr: csr('/CN=csr.example.com', 'DNS:alt.example.com') })).body.data;
    expect(signed.private_key).toBeUndefined();
    const text = new X509Certificate(signed.certificate);
    expect(text.subject).toBe('CN=csr.example.com');
    expect(text.subjectAltName).toBe('DNS:alt.example.com, DNS:csr.example.com');
    const denied = await v1(server, 'POST', 'pki-s/sign/csr', { body: { csr: csr('/CN=csr.example.com', 'DNS:alt.evil.org') } });
    expect(denied.body).toEqual({ errors: ['subject alternate name alt.evil.org not allowed by this role'] });

    await ok(server, 'POST', 'pki-s/roles/api-names', {
      allowed_domains: 'example.com',
      allow_subdomains: true,
      key_type: 'ec',
      use_csr_common_name: false,
      use_csr_sans: false,
    });
    const fromApi = (
      await ok(server, 'POST', 'pki-s/sign/api-names', { csr: csr('/CN=evil.org', 'DNS:evil.org'), common_name: 'api.example.com' })
    ).body.data;
    expect(new X509Certificate(fromApi.certificate).subjectAltName).toBe('DNS:api.example.com');
  });

  it('checks the CSR key against the role: type, size, and RSA at least 2048', async () => {
    await ok(server, 'POST', 'pki-s/roles/ec384', { allow_any_name: true, key_type: 'ec', key_bits: 384 });
    expect((await v1(server, 'POST', 'pki-s/sign/ec384', { body: { csr: csr('/CN=a.test', 'DNS:a.test') } })).body).toEqual({
      errors: ["role requires a minimum of a 384-bit key, but CSR's key is 256 bits"],
    });
    expect((await v1(server, 'POST', 'pki-s/sign/ec384', { body: { csr: csr('/CN=a.test', 'DNS:a.test', 'ec:P-384') } })).status).toBe(200);
    expect((await v1(server, 'POST', 'pki-s/sign/ec384', { body: { csr: csr('/CN=a.test', 'DNS:a.test', 'rsa:2048') } })).body).toEqual({
      errors: ['role requires keys of type ec'],
    });
    await ok(server, 'POST', 'pki-s/roles/any', { allow_any_name: true, key_type: 'any' });
    expect((await v1(server, 'POST', 'pki-s/sign/any', { body: { csr: csr('/CN=a.test', 'DNS:a.test', 'ec:P-224') } })).status).toBe(200);
    expect((await v1(server, 'POST', 'pki-s/sign/any', { body: { csr: csr('/CN=a.test', 'DNS:a.test', 'rsa:1024') } })).body).toEqual({
      errors: ['RSA keys < 2048 bits are unsafe and not supported'],
    });
    expect((await v1(server, 'POST', 'pki-s/sign/any', { body: { csr: 'garbage' } })).body).toEqual({ errors: ['csr contains no data'] });
  });

  it('sign-verbatim keeps the CSR subject; sign-self-issued re-signs a self-issued CA', async () => {
    const verbatim = (
      await ok(server, 'POST', 'pki-s/sign-verbatim', {
        csr: csr('/O=Anything/CN=whatever at all', 'DNS:x.anything'),
        ttl: '1h',
        ext_key_usage: 'ServerAuth',
      })
    ).body.data;
    const certificate = new X509Certificate(verbatim.certificate);
    expect(certificate.subject).toBe('O=Anything\nCN=whatever at all');
    expect(certificate.subjectAltName).toBe('DNS:x.anything');
    expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);

    await mountPki(server, 'pki-self');
    const self = await generateRoot(server, 'pki-self', { common_name: 'Self Issued', key_type: 'ec' });
    const resigned = (await ok(server, 'POST', 'pki-s/root/sign-self-issued', { certificate: self.certificate })).body.data;
    const caPem = await (await fetch(`${server.baseUrl}/v1/pki-s/ca/pem`)).text();
    expect(new X509Certificate(resigned.certificate).verify(new X509Certificate(caPem).publicKey)).toBe(true);
    expect(new X509Certificate(resigned.certificate).subject).toBe('CN=Self Issued');
    const leafCsr = csr('/CN=leaf.test', 'DNS:leaf.test');
    expect((await v1(server, 'POST', 'pki-s/root/sign-self-issued', { body: { certificate: leafCsr } })).status).toBe(400);
  });

  it('sign-intermediate derives the path length and refuses below a zero path length', async () => {
    await mountPki(server, 'pki-i1');
    const request = (
      await ok(server, 'POST', 'pki-i1/intermediate/generate/exported', { common_name: 'Int One', key_type: 'ec', format: 'pem_bundle' })
    ).body.data;
    expect(request.csr).toMatch(/^-----BEGIN EC PRIVATE KEY-----[\s\S]+-----BEGIN CERTIFICATE REQUEST-----/);
    const signed = (await ok(server, 'POST', 'pki-s/root/sign-intermediate', { csr: request.csr, common_name: 'Int One' })).body.data;
    expect(openssl(['x509', '-noout', '-text'], signed.certificate).output).toMatch(/CA:TRUE, pathlen:0/);
    await ok(server, 'POST', 'pki-i1/intermediate/set-signed', { certificate: signed.certificate });
    const deeper = (await ok(server, 'POST', 'pki-i1/intermediate/generate/internal', { common_name: 'Int Two', key_type: 'ec' })).body
      .data;
    expect(deeper.private_key).toBeUndefined();
    // pki-i1 replaced its key with the new CSR's (as upstream); sign from the root mount instead with the zero-length intermediate gone.
    await mountPki(server, 'pki-z');
    await generateRoot(server, 'pki-z', { common_name: 'Zero', key_type: 'ec', max_path_length: 0 });
    expect((await v1(server, 'POST', 'pki-z/root/sign-intermediate', { body: { csr: deeper.csr, common_name: 'Int Two' } })).body).toEqual({
      errors: ['signing certificate has a max path length of zero, and cannot issue further CA certificates'],
    });
    expect((await v1(server, 'POST', 'pki-i1/intermediate/set-signed', { body: { certificate: '' } })).body).toEqual({
      errors: ['no certificate provided in the "certificate" parameter'],
    });
  });
});
