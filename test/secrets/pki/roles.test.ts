import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';
import { generateRoot, hasOpenssl, mountPki, ok, x509Text } from './support.js';

/**
 * Every role rule, each with a name the role allows and one it denies (the whole request is
 * denied with the real service's text). EC keys keep key generation out of the way.
 */
interface RuleCase {
  rule: string;
  role: Record<string, unknown>;
  allowed: Record<string, unknown>;
  denied: Record<string, unknown>;
  error: string;
}

const EC = { key_type: 'ec', key_bits: 256 };

const CASES: RuleCase[] = [
  {
    rule: 'allowed_domains + allow_bare_domains',
    role: { allowed_domains: ['example.com'], allow_bare_domains: true },
    allowed: { common_name: 'example.com' },
    denied: { common_name: 'www.example.com' },
    error: 'common name www.example.com not allowed by this role',
  },
  {
    rule: 'allow_subdomains',
    role: { allowed_domains: 'example.com', allow_subdomains: true },
    allowed: { common_name: 'a.b.example.com' },
    denied: { common_name: 'example.com' },
    error: 'common name example.com not allowed by this role',
  },
  {
    rule: 'allow_subdomains does not match a suffix without a dot',
    role: { allowed_domains: 'example.com', allow_subdomains: true },
    allowed: { common_name: 'x.example.com' },
    denied: { common_name: 'badexample.com' },
    error: 'common name badexample.com not allowed by this role',
  },
  {
    rule: 'allow_glob_domains spans labels',
    role: { allowed_domains: 'web-*.example.com', allow_glob_domains: true },
    allowed: { common_name: 'web-a.b.example.com' },
    denied: { common_name: 'api.example.com' },
    error: 'common name api.example.com not allowed by this role',
  },
  {
    rule: 'glob domains need allow_glob_domains',
    role: { allowed_domains: 'web-*.example.com', allow_subdomains: true },
    allowed: {},
    denied: { common_name: 'web-a.example.com' },
    error: 'common name web-a.example.com not allowed by this role',
  },
  {
    rule: 'allow_any_name',
    role: { allow_any_name: true },
    allowed: { common_name: 'anything.test' },
    denied: { common_name: 'not a hostname' },
    error: 'common name not a hostname not allowed by this role',
  },
  {
    rule: 'enforce_hostnames off allows non-hostnames with any name',
    role: { allow_any_name: true, enforce_hostnames: false },
    allowed: { common_name: 'My Service' },
    denied: { common_name: 'x', alt_names: 'a@b@c' },
    error: 'email address a@b@c not allowed by this role',
  },
  {
    rule: 'allow_localhost',
    role: { allowed_domains: 'example.com', allow_bare_domains: true },
    allowed: { common_name: 'localhost' },
    denied: { common_name: 'localhost.example.org' },
    error: 'common name localhost.example.org not allowed by this role',
  },
  {
    rule: 'allow_localhost false',
    role: { allowed_domains: 'example.com', allow_bare_domains: true, allow_localhost: false },
    allowed: { common_name: 'example.com' },
    denied: { common_name: 'localhost' },
    error: 'common name localhost not allowed by this role',
  },
  {
    rule: 'wildcard *.example.com needs allow_subdomains',
    role: { allowed_domains: 'example.com', allow_subdomains: true },
    allowed: { common_name: '*.example.com' },
    denied: { common_name: '*.*.example.com' },
    error: 'common name *.*.example.com not allowed by this role',
  },
  {
    rule: 'wildcard foo*.example.com',
    role: { allowed_domains: 'example.com', allow_subdomains: true },
    allowed: { common_name: 'foo*.example.com' },
    denied: { common_name: 'a.foo*.example.com' },
    error: 'common name a.foo*.example.com not allowed by this role',
  },
  {
    rule: 'wildcard *foo.example.com',
    role: { allowed_domains: 'example.com', allow_subdomains: true },
    allowed: { common_name: '*foo.example.com' },
    denied: { common_name: '*foo.other.com' },
    error: 'common name *foo.other.com not allowed by this role',
  },
  {
    rule: 'wildcard f*o.example.com',
    role: { allowed_domains: 'example.com', allow_subdomains: true },
    allowed: { common_name: 'f*o.example.com' },
    denied: { common_name: 'f**o.example.com' },
    error: 'common name f**o.example.com not allowed by this role',
  },
  {
    rule: 'allow_wildcard_certificates false',
    role: { allowed_domains: 'example.com', allow_subdomains: true, allow_wildcard_certificates: false },
    allowed: { common_name: 'www.example.com' },
    denied: { common_name: '*.example.com' },
    error: 'common name *.example.com not allowed by this role',
  },
  {
    rule: 'alt_names must all match',
    role: { allowed_domains: 'example.com', allow_subdomains: true },
    allowed: { common_name: 'a.example.com', alt_names: 'b.example.com,c.example.com' },
    denied: { common_name: 'a.example.com', alt_names: 'b.example.com,evil.org' },
    error: 'subject alternate name evil.org not allowed by this role',
  },
  {
    rule: 'email alt names check their domain',
    role: { allowed_domains: 'example.com', allow_bare_domains: true },
    allowed: { common_name: 'example.com', alt_names: 'ops@example.com' },
    denied: { common_name: 'example.com', alt_names: 'ops@evil.org' },
    error: 'email address ops@evil.org not allowed by this role',
  },
  {
    rule: 'allow_ip_sans',
    role: { allow_any_name: true },
    allowed: { common_name: 'h.test', ip_sans: '127.0.0.1,::1' },
    denied: { common_name: 'h.test', ip_sans: '300.1.1.1' },
    error: "the value '300.1.1.1' is not a valid IP address",
  },
  {
    rule: 'allow_ip_sans false',
    role: { allow_any_name: true, allow_ip_sans: false },
    allowed: { common_name: 'h.test' },
    denied: { common_name: 'h.test', ip_sans: '10.0.0.1' },
    error: 'IP Subject Alternative Names are not allowed in this role, but was provided [10.0.0.1]',
  },
  {
    rule: 'allowed_uri_sans globs',
    role: { allow_any_name: true, allowed_uri_sans: 'spiffe://example.com/*' },
    allowed: { common_name: 'h.test', uri_sans: 'spiffe://example.com/ns/web' },
    denied: { common_name: 'h.test', uri_sans: 'spiffe://other.org/x' },
    error: 'URI Subject Alternative Names were provided via CSR which are not valid for this role',
  },
  {
    rule: 'no allowed_uri_sans',
    role: { allow_any_name: true },
    allowed: { common_name: 'h.test' },
    denied: { common_name: 'h.test', uri_sans: 'https://x.test/' },
    error: 'URI Subject Alternative Names are not allowed in this role, but were provided via the API',
  },
  {
    rule: 'allowed_other_sans by OID and value glob',
    role: { allow_any_name: true, allowed_other_sans: '1.3.6.1.4.1.311.20.2.3;UTF8:*@example.com' },
    allowed: { common_name: 'h.test', other_sans: '1.3.6.1.4.1.311.20.2.3;UTF8:dev@example.com' },
    denied: { common_name: 'h.test', other_sans: '1.3.6.1.4.1.311.20.2.3;UTF8:dev@evil.org' },
    error: 'other SAN dev@evil.org not allowed for OID 1.3.6.1.4.1.311.20.2.3 by this role',
  },
  {
    rule: 'allowed_other_sans unknown OID',
    role: { allow_any_name: true, allowed_other_sans: '1.2.3.4;UTF8:*' },
    allowed: { common_name: 'h.test', other_sans: ['1.2.3.4;UTF8:anything'] },
    denied: { common_name: 'h.test', other_sans: '1.2.3.5;UTF8:x' },
    error: 'other SAN OID 1.2.3.5 not allowed by this role',
  },
  {
    rule: 'allowed_other_sans *',
    role: { allow_any_name: true, allowed_other_sans: '*' },
    allowed: { common_name: 'h.test', other_sans: '1.2.3.9;UTF8:x' },
    denied: { common_name: 'h.test', other_sans: '1.2.3.9;IA5:x' },
    error: 'could not parse requested other SAN: only UTF8 other SAN types are currently supported, got "IA5"',
  },
  {
    rule: 'require_cn',
    role: { allow_any_name: true },
    allowed: { common_name: 'h.test' },
    denied: { alt_names: 'h.test' },
    error:
      'the common_name field is required, or must be provided in a CSR with "use_csr_common_name" set to true, unless "require_cn" is set to false',
  },
  {
    rule: 'require_cn false',
    role: { allowed_domains: 'example.com', allow_subdomains: true, require_cn: false },
    allowed: { alt_names: 'a.example.com' },
    denied: { alt_names: 'a.evil.org' },
    error: 'subject alternate name a.evil.org not allowed by this role',
  },
  {
    rule: 'subject serial_number needs allowed_serial_numbers',
    role: { allow_any_name: true, allowed_serial_numbers: 'SN-*' },
    allowed: { common_name: 'h.test', serial_number: 'SN-1' },
    denied: { common_name: 'h.test', serial_number: 'X-1' },
    error: 'serial_number X-1 not allowed by this role',
  },
  {
    rule: 'role serial_number is the default subject serial',
    role: { allow_any_name: true, serial_number: 'ROLE-7', allowed_serial_numbers: 'ROLE-*' },
    allowed: { common_name: 'h.test' },
    denied: { common_name: 'h.test', serial_number: 'OTHER-1' },
    error: 'serial_number OTHER-1 not allowed by this role',
  },
  {
    rule: 'key_type any is for signing only',
    role: { allow_any_name: true, key_type: 'any' },
    allowed: {},
    denied: { common_name: 'h.test' },
    error: 'role key type "any" not allowed for issuing certificates, only signing',
  },
];

describe('PKI role rules: an allowed and a denied name per rule', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    await mountPki(server, 'pki-roles');
    await generateRoot(server, 'pki-roles', { common_name: 'Roles Root', key_type: 'ec' });
  });
  afterAll(() => server.close());

  CASES.forEach((rule, index) => {
    it(rule.rule, async () => {
      const name = `r${index}`;
      await ok(server, 'POST', `pki-roles/roles/${name}`, { ...EC, ...rule.role });
      if (Object.keys(rule.allowed).length > 0) {
        const issued = await v1(server, 'POST', `pki-roles/issue/${name}`, { body: { ttl: '1h', ...rule.allowed } });
        expect(issued.status, issued.text).toBe(200);
        expect(issued.body.data.certificate).toContain('BEGIN CERTIFICATE');
      }
      const before = (await v1(server, 'GET', 'pki-roles/certs?list=true')).body?.data?.keys?.length ?? 0;
      const denied = await v1(server, 'POST', `pki-roles/issue/${name}`, { body: { ttl: '1h', ...rule.denied } });
      expect(denied.status, denied.text).toBe(400);
      expect(denied.body).toEqual({ errors: [rule.error] });
      const after = (await v1(server, 'GET', 'pki-roles/certs?list=true')).body?.data?.keys?.length ?? 0;
      expect(after).toBe(before);
    });
  });

  it('caps a TTL above max_ttl and refuses one past the CA', async () => {
    await ok(server, 'POST', 'pki-roles/roles/ttl', { ...EC, allow_any_name: true, ttl: '1h', max_ttl: '2h' });
    const byRole = (await ok(server, 'POST', 'pki-roles/issue/ttl', { common_name: 'a.test' })).body.data;
    const capped = (await ok(server, 'POST', 'pki-roles/issue/ttl', { common_name: 'a.test', ttl: '100h' })).body.data;
    const now = Date.now() / 1000;
    expect(byRole.expiration - now).toBeGreaterThan(3500);
    expect(byRole.expiration - now).toBeLessThan(3700);
    expect(capped.expiration - now).toBeGreaterThan(7100);
    expect(capped.expiration - now).toBeLessThan(7300);
    await ok(server, 'POST', 'pki-roles/roles/long', { ...EC, allow_any_name: true, max_ttl: '87600h' });
    const past = await v1(server, 'POST', 'pki-roles/issue/long', { body: { common_name: 'a.test', ttl: '20000h' } });
    expect(past.status).toBe(400);
    expect(past.body.errors[0]).toMatch(
      /^cannot satisfy request, as TTL would result in notAfter .* that is beyond the expiration of the CA certificate at /,
    );
  });

  it('rejects bad role settings', async () => {
    const bits = await v1(server, 'POST', 'pki-roles/roles/bad', { body: { key_type: 'rsa', key_bits: 1024 } });
    expect(bits.body).toEqual({ errors: ['unsupported bit length for RSA key: 1024'] });
    const ec = await v1(server, 'POST', 'pki-roles/roles/bad', { body: { key_type: 'ec', key_bits: 255 } });
    expect(ec.body).toEqual({ errors: ['unsupported bit length for EC key: 255'] });
    const ttl = await v1(server, 'POST', 'pki-roles/roles/bad', { body: { ttl: '2h', max_ttl: '1h' } });
    expect(ttl.body).toEqual({ errors: ['"ttl" value must be less than "max_ttl" value'] });
    const unknown = await v1(server, 'POST', 'pki-roles/issue/missing', { body: { common_name: 'a.test' } });
    expect(unknown.body).toEqual({ errors: ['unknown role: missing'] });
  });

  it('reads a role back with every default, and lists and deletes roles', async () => {
    await ok(server, 'POST', 'pki-roles/roles/defaults', {});
    const role = (await ok(server, 'GET', 'pki-roles/roles/defaults')).body.data;
    expect(role).toMatchObject({
      ttl: 0,
      max_ttl: 0,
      allow_localhost: true,
      allowed_domains: [],
      allow_bare_domains: false,
      allow_subdomains: false,
      allow_glob_domains: false,
      allow_wildcard_certificates: true,
      allow_any_name: false,
      enforce_hostnames: true,
      allow_ip_sans: true,
      allowed_uri_sans: [],
      allowed_other_sans: [],
      server_flag: true,
      client_flag: true,
      code_signing_flag: false,
      email_protection_flag: false,
      key_type: 'rsa',
      key_bits: 2048,
      key_usage: ['DigitalSignature', 'KeyAgreement', 'KeyEncipherment'],
      ext_key_usage: [],
      ext_key_usage_oids: [],
      use_csr_common_name: true,
      use_csr_sans: true,
      ou: [],
      organization: [],
      country: [],
      generate_lease: false,
      no_store: false,
      require_cn: true,
      policy_identifiers: [],
      basic_constraints_valid_for_non_ca: false,
      not_before_duration: 30,
    });
    const listed = (await ok(server, 'GET', 'pki-roles/roles?list=true')).body.data.keys;
    expect(listed).toContain('defaults');
    await ok(server, 'DELETE', 'pki-roles/roles/defaults');
    expect((await v1(server, 'GET', 'pki-roles/roles/defaults')).status).toBe(404);
  });

  it.skipIf(!hasOpenssl)('writes usages, subject fields, policies, basic constraints and backdating as the role asks', async () => {
    await ok(server, 'POST', 'pki-roles/roles/shape', {
      ...EC,
      allow_any_name: true,
      key_usage: ['digitalsignature', 'CONTENTCOMMITMENT'],
      ext_key_usage: ['timestamping'],
      ext_key_usage_oids: '1.2.3.4.5',
      server_flag: false,
      client_flag: true,
      code_signing_flag: true,
      organization: 'Acme',
      ou: 'Ops,Dev',
      country: 'DE',
      policy_identifiers: '1.3.6.1.4.1.99999.1',
      basic_constraints_valid_for_non_ca: true,
      not_before_duration: '1h',
      serial_number: 'SHAPE-1',
    });
    const issued = (
      await ok(server, 'POST', 'pki-roles/issue/shape', { common_name: 'shape.test', exclude_cn_from_sans: true, alt_names: 'other.test' })
    ).body.data;
    const text = x509Text(issued.certificate);
    expect(text).toContain('Digital Signature, Non Repudiation');
    expect(text).toMatch(/TLS Web Client Authentication, Code Signing, Time Stamping, 1\.2\.3\.4\.5/);
    expect(text).toMatch(/Subject: C ?= ?DE, O ?= ?Acme, OU ?= ?Ops, OU ?= ?Dev, CN ?= ?shape\.test/);
    expect(text).toContain('Policy: 1.3.6.1.4.1.99999.1');
    expect(text).toContain('CA:FALSE');
    expect(text).toContain('DNS:other.test');
    expect(text).toMatch(/serialNumber ?= ?SHAPE-1/);
    expect(text).not.toContain('DNS:shape.test');
    const notBefore = Date.parse(/Not Before: (.*)/.exec(text)?.[1] ?? '');
    expect(Date.now() - notBefore).toBeGreaterThan(3500_000);
  });
});
