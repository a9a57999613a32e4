import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { secretEntries } from '../../../src/store/tables.js';
import { v1 } from '../core/client.js';
import { SOFTHSM_LIBRARY, softHsm, softHsmMissing, type SoftHsm } from '../managed-keys/softhsm.js';
import { generateRoot, hasOpenssl, mountPki, ok, openssl, requireOpenssl, scratch } from './support.js';

/**
 * PKI CAs whose key lives in a managed key's backend (`root/generate/kms`, `intermediate/generate/kms`):
 * every signature (root, CSR, leaves, CRLs) is made by SoftHSM2 or the cloud-a-kms stand-in, and
 * OpenSSL verifies what they signed.
 */

const PIN = '1234';
const files = scratch();
afterAll(() => files.cleanup());

/** A mount that may use `keys` (its `allowed_managed_keys`). */
async function mountWithKeys(server: TestServer, path: string, keys: string[]): Promise<void> {
  await ok(server, 'POST', `sys/mounts/${path}`, { type: 'pki', config: { max_lease_ttl: '87600h', allowed_managed_keys: keys } });
}

async function rootKms(server: TestServer, mount: string, body: Record<string, unknown>) {
  return v1(server, 'POST', `${mount}/root/generate/kms`, { body: { common_name: `${mount} Root`, ttl: '8760h', ...body } });
}

/** Issues a leaf from `mount` and checks it with `openssl verify` against `chainFiles` (root first). */
async function issueVerified(server: TestServer, mount: string, rootFile: string, untrusted?: string) {
  await ok(server, 'POST', `${mount}/roles/web`, { allowed_domains: 'example.com', allow_subdomains: true, max_ttl: '72h' });
  const leaf = (await ok(server, 'POST', `${mount}/issue/web`, { common_name: 'www.example.com', ttl: '24h' })).body.data;
  const leafFile = files.path(`${mount}-${leaf.serial_number}.pem`, leaf.certificate);
  const args = ['verify', '-CAfile', rootFile, ...(untrusted ? ['-untrusted', untrusted] : []), leafFile];
  expect(openssl(args).output).toContain(': OK');
  return { leaf, leafFile, args };
}

/** Revokes the leaf; the CA's CRL lists it, verifies with the CA's key, and makes `openssl verify -crl_check` fail. */
async function revokeAndCheckCrl(server: TestServer, mount: string, caFile: string, leaf: { serial_number: string }, verifyArgs: string[]) {
  await ok(server, 'POST', `${mount}/revoke`, { serial_number: leaf.serial_number });
  const crlPem = await (await fetch(`${server.baseUrl}/v1/${mount}/crl/pem`)).text();
  const crlFile = files.path(`${mount}.crl`, crlPem);
  expect(openssl(['crl', '-in', crlFile, '-noout', '-CAfile', caFile]).output).toContain('verify OK');
  expect(openssl(['crl', '-in', crlFile, '-noout', '-text']).output).toContain(leaf.serial_number.replace(/:/g, '').toUpperCase());
  const [verb, ...rest] = verifyArgs;
  const check = openssl([verb as string, '-crl_check', '-CRLfile', crlFile, ...rest]);
  expect(check.status).not.toBe(0);
  expect(check.output).toContain('certificate revoked');
}

/** The mount's stored entries, as the store holds them: no private key may be among them. */
async function storedEntries(server: TestServer, mount: string): Promise<string> {
  const uuid = (await ok(server, 'GET', `sys/mounts/${mount}`)).body.data.uuid as string;
  const rows = server.app.runtime.store.db.select().from(secretEntries).where(eq(secretEntries.mountUuid, uuid)).all();
  expect(rows.length).toBeGreaterThan(0);
  return JSON.stringify(rows);
}

/** A kms response carries certificates only: no key fields, no key text. */
function expectNoKey(reply: { text: string; body: { data: Record<string, unknown> } }): void {
  expect(Object.keys(reply.body.data).filter((field) => field.startsWith('private_key'))).toEqual([]);
  expect(reply.text).not.toContain('PRIVATE KEY');
}

describe.skipIf(softHsmMissing !== null || (!hasOpenssl && !process.env.CI))('PKI with a CA key in SoftHSM2 (pkcs11 managed key)', () => {
  let hsm: SoftHsm;
  let dir: string;
  let store: string;
  let server: TestServer;
  const env = () => ({ UNDERSTUDY_KMS_LIBRARIES: `softhsm=${SOFTHSM_LIBRARY}`, UNDERSTUDY_STORE: store });
  const hsmKey = { library: 'softhsm', token_label: 'pki-token', pin: PIN, allow_generate_key: true };

  beforeAll(async () => {
    requireOpenssl();
    hsm = softHsm();
    hsm.initToken('pki-token', PIN);
    dir = mkdtempSync(join(tmpdir(), 'understudy-pki-kms-'));
    store = join(dir, 'store.db');
    server = await startServer(env());
  });
  afterAll(async () => {
    await server?.close();
    hsm?.remove();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('makes a root whose key stays in the token, issues a leaf and a CRL OpenSSL verifies, and keeps signing after a restart', async () => {
    await ok(server, 'POST', 'sys/managed-keys/pkcs11/hsm-root', { ...hsmKey, mechanism: '0x0001', key_label: 'pki-root', key_bits: 2048 });
    await mountWithKeys(server, 'hsm-pki', ['hsm-root']);
    const generated = await rootKms(server, 'hsm-pki', { managed_key_name: 'hsm-root', format: 'pem_bundle' });
    expect(generated.status, generated.text).toBe(200);
    expectNoKey(generated);
    const rootPem = (await (await fetch(`${server.baseUrl}/v1/hsm-pki/ca/pem`)).text()).trim();
    const rootFile = files.path('hsm-root.pem', rootPem);
    expect(openssl(['verify', '-CAfile', rootFile, rootFile]).output).toContain(': OK');
    // The token holds the key: the managed key's own test/sign signs with the same key pair.
    expect((await v1(server, 'POST', 'sys/managed-keys/pkcs11/hsm-root/test/sign')).status).toBe(204);
    expect(await storedEntries(server, 'hsm-pki')).not.toContain('PRIVATE KEY');

    const { leaf, args } = await issueVerified(server, 'hsm-pki', rootFile);
    await revokeAndCheckCrl(server, 'hsm-pki', rootFile, leaf, args);

    await server.close();
    server = await startServer(env());
    const after = await issueVerified(server, 'hsm-pki', rootFile);
    await ok(server, 'GET', 'hsm-pki/crl/rotate');
    const crlFile = files.path('hsm-after.crl', await (await fetch(`${server.baseUrl}/v1/hsm-pki/crl/pem`)).text());
    expect(openssl(['crl', '-in', crlFile, '-noout', '-CAfile', rootFile]).output).toContain('verify OK');
    expect(after.leaf.ca_chain).toEqual([rootPem]);
  });

  for (const [kind, key] of [
    ['ECDSA P-256', { mechanism: '0x1041', key_label: 'pki-ec', curve: 'P256' }],
    ['RSA-PSS', { mechanism: '0x000D', key_label: 'pki-pss', key_bits: 2048 }],
  ] as const) {
    it(`signs the root and leaves with an ${kind} key in the token`, async () => {
      const name = `hsm-${key.key_label}`;
      await ok(server, 'POST', `sys/managed-keys/pkcs11/${name}`, { ...hsmKey, ...key, any_mount: true });
      await mountPki(server, name);
      const generated = await rootKms(server, name, { managed_key_name: name });
      expect(generated.status, generated.text).toBe(200);
      const rootFile = files.path(`${name}-root.pem`, generated.body.data.certificate);
      const algorithm = kind === 'RSA-PSS' ? 'rsassaPss' : 'ecdsa-with-SHA256';
      expect(openssl(['x509', '-in', rootFile, '-noout', '-text']).output).toContain(algorithm);
      const { leaf, args } = await issueVerified(server, name, rootFile);
      await revokeAndCheckCrl(server, name, rootFile, leaf, args);
    });
  }
});

describe.skipIf(!hasOpenssl && !process.env.CI)('PKI with a CA key in the cloud key service stand-ins', () => {
  let server: TestServer;
  const credentials = { access_key: 'AKIDSTANDIN', secret_key: 'stand-in-secret' };
  beforeAll(async () => {
    requireOpenssl();
    server = await startServer();
    const rsa = { ...credentials, key_type: 'RSA', key_bits: 2048, kms_key: 'alias/pki-ca', allow_generate_key: true };
    await ok(server, 'POST', 'sys/managed-keys/cloud-a-kms/kms-ca', rsa);
    const ec = { ...credentials, key_type: 'ECDSA', curve: 'P256', kms_key: 'alias/pki-open', allow_generate_key: true, any_mount: true };
    await ok(server, 'POST', 'sys/managed-keys/cloud-a-kms/kms-open', ec);
  });
  afterAll(() => server.close());

  it('makes a root by managed_key_id, issues a leaf and revokes it, all verified by OpenSSL', async () => {
    const id = (await ok(server, 'GET', 'sys/managed-keys/cloud-a-kms/kms-ca')).body.data.UUID as string;
    await mountWithKeys(server, 'kms-pki', [id]);
    const generated = await rootKms(server, 'kms-pki', { managed_key_id: id });
    expect(generated.status, generated.text).toBe(200);
    expectNoKey(generated);
    // The issuer's key is the managed key: its own type and names, no key material in the mount.
    const key = (await ok(server, 'GET', `kms-pki/key/${generated.body.data.key_id}`)).body.data;
    expect(key).toMatchObject({ key_type: 'rsa', managed_key_id: id, managed_key_name: 'kms-ca' });
    expect(key.subject_key_id).toMatch(/^([0-9a-f]{2}:){19}[0-9a-f]{2}$/);
    expect((await ok(server, 'GET', 'kms-pki/issuer/default')).body.data.key_id).toBe(generated.body.data.key_id);
    const rootFile = files.path('kms-root.pem', generated.body.data.certificate);
    expect(openssl(['verify', '-CAfile', rootFile, rootFile]).output).toContain(': OK');
    const { leaf, args } = await issueVerified(server, 'kms-pki', rootFile);
    await revokeAndCheckCrl(server, 'kms-pki', rootFile, leaf, args);
    expect(await storedEntries(server, 'kms-pki')).not.toContain('PRIVATE KEY');
  });

  it('also signs through the cloud-c-keyvault stand-in', async () => {
    const identity = { tenant_id: 'tenant-1', client_id: 'app-1', client_secret: 'app-secret' };
    const key = { ...identity, vault_name: 'pki', key_name: 'ca', key_type: 'RSA', key_bits: 2048, allow_generate_key: true };
    await ok(server, 'POST', 'sys/managed-keys/cloud-c-keyvault/vault-ca', key);
    await mountWithKeys(server, 'vault-pki', ['vault-ca']);
    const generated = await rootKms(server, 'vault-pki', { managed_key_name: 'vault-ca' });
    expect(generated.status, generated.text).toBe(200);
    const rootFile = files.path('vault-root.pem', generated.body.data.certificate);
    const { leaf, args } = await issueVerified(server, 'vault-pki', rootFile);
    await revokeAndCheckCrl(server, 'vault-pki', rootFile, leaf, args);
  });

  it('refuses a key the mount may not use, and a request naming no key or both, changing nothing', async () => {
    await mountPki(server, 'not-allowed');
    const cases: [Record<string, unknown>, string][] = [
      [{ managed_key_name: 'kms-ca' }, 'managed key "kms-ca" is not allowed on mount not-allowed/'],
      [{}, 'missing argument managed_key_name or managed_key_id'],
      [
        { managed_key_name: 'kms-ca', managed_key_id: 'abc' },
        'only one argument of managed_key_name or managed_key_id should be specified',
      ],
      [{ managed_key_name: 'absent' }, 'no managed key found with name "absent"'],
    ];
    for (const [body, message] of cases) {
      const refused = await rootKms(server, 'not-allowed', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.errors.join('\n')).toContain(message);
      const refusedCsr = await v1(server, 'POST', 'not-allowed/intermediate/generate/kms', { body: { common_name: 'x', ...body } });
      expect(refusedCsr.status).toBe(400);
    }
    expect((await fetch(`${server.baseUrl}/v1/not-allowed/ca/pem`)).status).toBe(204);
    // The mount is unchanged: an ordinary root can still be made there.
    await generateRoot(server, 'not-allowed', { common_name: 'Local Root' });
  });

  it('stops signing when the mount no longer lists the key', async () => {
    await mountWithKeys(server, 'revoked-use', ['kms-ca']);
    expect((await rootKms(server, 'revoked-use', { managed_key_name: 'kms-ca' })).status).toBe(200);
    await ok(server, 'POST', 'revoked-use/roles/web', { allowed_domains: 'example.com', allow_subdomains: true });
    expect((await v1(server, 'POST', 'revoked-use/issue/web', { body: { common_name: 'a.example.com' } })).status).toBe(200);
    await ok(server, 'POST', 'sys/mounts/revoked-use/tune', { allowed_managed_keys: [] });
    const refused = await v1(server, 'POST', 'revoked-use/issue/web', { body: { common_name: 'b.example.com' } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.join('\n')).toContain('is not allowed on mount revoked-use/');
  });

  it('refuses to sign once the managed key points at another key, rather than make signatures that do not verify', async () => {
    const key = { ...credentials, key_type: 'RSA', key_bits: 2048, allow_generate_key: true, any_mount: true };
    await ok(server, 'POST', 'sys/managed-keys/cloud-a-kms/kms-swap', { ...key, kms_key: 'alias/pki-swap-1' });
    await mountPki(server, 'swapped');
    expect((await rootKms(server, 'swapped', { managed_key_name: 'kms-swap' })).status).toBe(200);
    await ok(server, 'POST', 'sys/managed-keys/cloud-a-kms/kms-swap', { ...key, kms_key: 'alias/pki-swap-2' });
    const refused = await v1(server, 'GET', 'swapped/crl/rotate');
    expect(refused.status).toBe(400);
    expect(refused.body.errors.join('\n')).toContain('managed key "kms-swap" no longer holds this CA\'s key');
  });

  it('generates an intermediate CSR in the key service, has another mount sign it, then issues through it', async () => {
    await mountPki(server, 'kms-parent');
    const root = await generateRoot(server, 'kms-parent', { common_name: 'Parent Root', key_type: 'ec' });
    const rootFile = files.path('parent-root.pem', root.certificate);
    await mountPki(server, 'kms-int');
    const body = { common_name: 'KMS Intermediate', managed_key_name: 'kms-open' };
    const generated = await v1(server, 'POST', 'kms-int/intermediate/generate/kms', { body });
    expect(generated.status, generated.text).toBe(200);
    expect(Object.keys(generated.body.data)).toEqual(['csr', 'key_id']);
    const csr = generated.body.data.csr as string;
    expect(openssl(['req', '-in', files.path('kms-int.csr', csr), '-noout', '-verify']).output).toMatch(/verify OK/);

    const sign = (request: Record<string, unknown>) => ok(server, 'POST', 'kms-parent/root/sign-intermediate', request);
    const signed = (await sign({ csr, common_name: 'KMS Intermediate', ttl: '4380h' })).body.data;
    const intFile = files.path('kms-int.pem', signed.certificate);
    // A certificate for another key is refused; the one for the managed key is installed.
    const other = (await sign({ csr: await otherCsr(server), common_name: 'Other', ttl: '48h' })).body.data;
    const mismatch = await v1(server, 'POST', 'kms-int/intermediate/set-signed', { body: { certificate: other.certificate } });
    expect(mismatch.status).toBe(400);
    await ok(server, 'POST', 'kms-int/intermediate/set-signed', { certificate: `${signed.certificate}\n${root.certificate}` });

    const { leaf, args } = await issueVerified(server, 'kms-int', rootFile, intFile);
    expect(leaf.ca_chain).toEqual([signed.certificate, root.certificate]);
    await revokeAndCheckCrl(server, 'kms-int', intFile, leaf, args);
  });
});

/** A CSR from an ordinary (local-key) intermediate mount. */
async function otherCsr(server: TestServer): Promise<string> {
  await mountPki(server, 'kms-other');
  const reply = await ok(server, 'POST', 'kms-other/intermediate/generate/internal', { common_name: 'Other', key_type: 'ec' });
  return reply.body.data.csr as string;
}
