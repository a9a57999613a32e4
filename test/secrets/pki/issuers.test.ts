import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';
import { hasOpenssl, mountPki, ok, openssl, requireOpenssl, scratch } from './support.js';

type Data = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON bodies read field by field

const serialHex = (serial: string) => serial.replace(/:/g, '').toUpperCase();

/** The multi-issuer API: several roots and intermediates in one mount, keys, defaults, per-issuer CRLs. */
describe.skipIf(!hasOpenssl && !process.env.CI)('PKI issuers and keys', () => {
  let server: TestServer;
  const files = scratch();
  let rootA: Data;
  let rootB: Data;
  const get = async (path: string): Promise<Data> => (await ok(server, 'GET', path)).body.data as Data;
  const post = async (path: string, body: Record<string, unknown>): Promise<Data> =>
    ((await ok(server, 'POST', path, body)).body?.data ?? {}) as Data;

  /** A JSON merge patch, the way clients send PATCH. */
  const patch = async (path: string, body: Record<string, unknown>) => {
    const reply = await fetch(`${server.baseUrl}/v1/${path}`, {
      method: 'PATCH',
      headers: { 'x-vault-token': ROOT_TOKEN, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify(body),
    });
    const text = await reply.text();
    expect(reply.status, text).toBe(200);
    return JSON.parse(text) as { data: Data; warnings: string[] | null };
  };

  beforeAll(async () => {
    requireOpenssl();
    server = await startServer();
    await mountPki(server, 'multi');
    rootA = await post('multi/issuers/generate/root/internal', {
      common_name: 'Root A',
      issuer_name: 'root-a',
      key_name: 'key-a',
      key_type: 'ec',
      ttl: '8760h',
    });
    rootB = await post('multi/issuers/generate/root/internal', {
      common_name: 'Root B',
      issuer_name: 'root-b',
      key_type: 'ec',
      ttl: '8760h',
    });
    await post('multi/roles/web', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', ttl: '1h' });
  });
  afterAll(async () => {
    files.cleanup();
    await server.close();
  });

  it('lists issuers (without a token) and keys, reads each by id or name, the first being the default', async () => {
    expect(rootA).toMatchObject({ issuer_name: 'root-a', key_name: 'key-a' });
    expect(rootA.issuer_id).toMatch(/^[0-9a-f-]{36}$/);
    const listed = await v1(server, 'GET', 'multi/issuers?list=true', { token: null });
    expect(listed.status).toBe(200);
    expect(listed.body.data.keys).toEqual(expect.arrayContaining([rootA.issuer_id, rootB.issuer_id]));
    expect(listed.body.data.key_info[rootA.issuer_id]).toEqual({
      issuer_name: 'root-a',
      is_default: true,
      serial_number: rootA.serial_number,
      key_id: rootA.key_id,
    });
    expect(listed.body.data.key_info[rootB.issuer_id].is_default).toBe(false);
    const byName = await get('multi/issuer/root-a');
    expect(byName).toMatchObject({
      issuer_id: rootA.issuer_id,
      key_id: rootA.key_id,
      certificate: rootA.certificate,
      ca_chain: [rootA.certificate],
      leaf_not_after_behavior: 'err',
      usage: 'read-only,issuing-certificates,crl-signing,ocsp-signing',
      revoked: false,
    });
    expect(await get('multi/issuer/default')).toEqual(byName);
    expect(await get(`multi/issuer/${rootA.issuer_id}/json`)).toEqual({
      certificate: rootA.certificate,
      ca_chain: [rootA.certificate],
      issuer_id: rootA.issuer_id,
      issuer_name: 'root-a',
    });
    const pem = await fetch(`${server.baseUrl}/v1/multi/issuer/root-b/pem`);
    expect(pem.headers.get('content-type')).toBe('application/pem-certificate-chain');
    expect(await pem.text()).toBe(rootB.certificate);
    const der = Buffer.from(await (await fetch(`${server.baseUrl}/v1/multi/issuer/root-b/der`)).arrayBuffer());
    expect(new X509Certificate(der).toString().trim()).toBe(rootB.certificate);
    const keys = (await ok(server, 'GET', 'multi/keys?list=true')).body.data as Data;
    expect(keys.key_info[rootA.key_id]).toEqual({ key_name: 'key-a' });
    const key = await get('multi/key/key-a');
    expect(key).toMatchObject({ key_id: rootA.key_id, key_name: 'key-a', key_type: 'ec' });
    expect(openssl(['x509', '-noout', '-ext', 'subjectKeyIdentifier'], rootA.certificate).output.toUpperCase()).toContain(
      key.subject_key_id.toUpperCase(),
    );
    expect((await v1(server, 'GET', 'multi/keys?list=true', { token: null })).status).toBe(403);
    expect((await v1(server, 'GET', 'multi/issuer/nope')).body).toEqual({
      errors: ['1 error occurred:\n\t* unable to find PKI issuer for reference: nope\n\n'],
    });
  });

  it('refuses names that are taken, reserved or malformed, changing nothing', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['multi/issuers/generate/root/internal', { common_name: 'x', issuer_name: 'root-a' }, 'issuer name already in use'],
      [
        'multi/issuers/generate/root/internal',
        { common_name: 'x', issuer_name: 'Default' },
        "reserved keyword 'default' can not be used as issuer name",
      ],
      ['multi/issuers/generate/root/internal', { common_name: 'x', issuer_name: 'a b' }, 'issuer name contained invalid characters'],
      ['multi/issuers/generate/root/internal', { common_name: 'x', key_name: 'key-a' }, 'key name already in use'],
      ['multi/issuer/root-b', { issuer_name: 'root-a' }, 'issuer name already in use'],
    ];
    for (const [path, body, message] of cases) {
      const reply = await v1(server, 'POST', path, { body });
      expect(reply.status, path).toBe(400);
      expect(reply.body.errors).toEqual([message]);
    }
    expect((await ok(server, 'GET', 'multi/issuers?list=true')).body.data.keys).toHaveLength(2);
  });

  it('issue and sign use the default issuer, the role’s issuer_ref, or the issuer in the path', async () => {
    const aFile = files.path('a.pem', rootA.certificate);
    const bFile = files.path('b.pem', rootB.certificate);
    const byDefault = await post('multi/issue/web', { common_name: 'd.example.com' });
    expect(byDefault.issuing_ca).toBe(rootA.certificate);
    expect(openssl(['verify', '-CAfile', aFile, files.path('d.pem', byDefault.certificate)]).output).toContain(': OK');
    const byPath = await post('multi/issuer/root-b/issue/web', { common_name: 'p.example.com' });
    expect(byPath.ca_chain).toEqual([rootB.certificate]);
    expect(openssl(['verify', '-CAfile', bFile, files.path('p.pem', byPath.certificate)]).output).toContain(': OK');
    expect(openssl(['verify', '-CAfile', aFile, files.path('p2.pem', byPath.certificate)]).output).not.toContain(': OK');
    await post('multi/roles/web-b', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', issuer_ref: 'root-b' });
    expect((await get('multi/roles/web-b')).issuer_ref).toBe('root-b');
    expect((await get('multi/roles/web')).issuer_ref).toBe('default');
    expect((await post('multi/issue/web-b', { common_name: 'r.example.com' })).issuing_ca).toBe(rootB.certificate);
    const unknown = await v1(server, 'POST', 'multi/roles/web-x', { body: { issuer_ref: 'nope' } });
    expect(unknown.body.errors).toEqual(['1 error occurred:\n\t* unable to find PKI issuer for reference: nope\n\n']);
  });

  it('leaf_not_after_behavior decides what happens past the issuer: err, truncate, permit', async () => {
    await post('multi/roles/long', { allow_any_name: true, key_type: 'ec', max_ttl: '87600h' });
    const past = await v1(server, 'POST', 'multi/issuer/root-b/issue/long', { body: { common_name: 'l.test', ttl: '9000h' } });
    expect(past.body.errors[0]).toMatch(/^cannot satisfy request, as TTL would result in notAfter .* beyond the expiration of the CA/);
    // PATCH changes only what it names; POST would also clear the name it is not given.
    const patched = await patch('multi/issuer/root-b', { leaf_not_after_behavior: 'truncate' });
    expect(patched.data).toMatchObject({ issuer_name: 'root-b', leaf_not_after_behavior: 'truncate' });
    const truncated = await post('multi/issuer/root-b/issue/long', { common_name: 'l.test', ttl: '9000h' });
    expect(new X509Certificate(truncated.certificate).validTo).toBe(new X509Certificate(rootB.certificate).validTo);
    await patch('multi/issuer/root-b', { leaf_not_after_behavior: 'permit' });
    const permitted = await post('multi/issuer/root-b/issue/long', { common_name: 'l.test', ttl: '9000h' });
    expect(new Date(new X509Certificate(permitted.certificate).validTo).getTime()).toBeGreaterThan(
      new Date(new X509Certificate(rootB.certificate).validTo).getTime(),
    );
    const bad = await v1(server, 'POST', 'multi/issuer/root-b', { body: { leaf_not_after_behavior: 'later' } });
    expect(bad.body.errors).toEqual([
      'Unknown value for field `leaf_not_after_behavior`. Possible values are `err`, `truncate`, and `permit`.',
    ]);
    await patch('multi/issuer/root-b', { leaf_not_after_behavior: 'err' });
  });

  it('usage without issuing-certificates stops issuance from that issuer; renaming keeps its id', async () => {
    const updated = await post('multi/issuer/root-b', { usage: 'read-only,crl-signing', issuer_name: 'root-b2' });
    expect(updated).toMatchObject({ issuer_id: rootB.issuer_id, issuer_name: 'root-b2', usage: 'read-only,crl-signing' });
    const refused = await v1(server, 'POST', 'multi/issuer/root-b2/issue/web', { body: { common_name: 'u.example.com' } });
    expect(refused.body.errors).toEqual([
      `could not fetch the CA certificate (was one set?): requested usage issuing-certificates for issuer [${rootB.issuer_id}] ` +
        'but only had usage [read-only crl-signing]',
    ]);
    expect((await v1(server, 'GET', 'multi/issuer/root-b')).status).toBe(400);
    await patch('multi/issuer/root-b2', {
      usage: 'read-only,issuing-certificates,crl-signing,ocsp-signing',
      issuer_name: 'root-b',
    });
    expect((await post('multi/issuer/root-b/issue/web', { common_name: 'u.example.com' })).issuing_ca).toBe(rootB.certificate);
  });

  it('keeps a CRL per issuer: a revoked leaf is listed by the issuer that signed it only', async () => {
    const leafB = await post('multi/issuer/root-b/issue/web', { common_name: 'crl.example.com' });
    const leafA = await post('multi/issue/web', { common_name: 'crl-a.example.com' });
    await post('multi/revoke', { serial_number: leafB.serial_number });
    const crlB = await fetch(`${server.baseUrl}/v1/multi/issuer/root-b/crl/pem`);
    expect(crlB.headers.get('content-type')).toBe('application/x-pem-file');
    const crlBFile = files.path('b.crl', await crlB.text());
    expect(openssl(['crl', '-in', crlBFile, '-noout', '-CAfile', files.path('b.pem', rootB.certificate)]).output).toContain('verify OK');
    expect(openssl(['crl', '-in', crlBFile, '-noout', '-text']).output).toContain(serialHex(leafB.serial_number));
    const crlAJson = await get('multi/issuer/root-a/crl');
    const crlAFile = files.path('a.crl', crlAJson.crl as string);
    expect(openssl(['crl', '-in', crlAFile, '-noout', '-CAfile', files.path('a.pem', rootA.certificate)]).output).toContain('verify OK');
    expect(openssl(['crl', '-in', crlAFile, '-noout', '-text']).output).not.toContain(serialHex(leafB.serial_number));
    // The single-issuer CRL is the default issuer's.
    const legacy = Buffer.from(await (await fetch(`${server.baseUrl}/v1/multi/crl`)).arrayBuffer());
    const derA = Buffer.from(await (await fetch(`${server.baseUrl}/v1/multi/issuer/default/crl/der`)).arrayBuffer());
    expect(legacy.equals(derA)).toBe(true);
    const leafFile = files.path('leaf-b.pem', leafB.certificate);
    const check = openssl(['verify', '-crl_check', '-CAfile', files.path('b.pem', rootB.certificate), '-CRLfile', crlBFile, leafFile]);
    expect(check.output).toContain('certificate revoked');
    expect(leafA.serial_number).not.toBe(leafB.serial_number);
  });

  it('an intermediate made, signed and set in the same mount chains to its root; revoking it lists it on the root’s CRL', async () => {
    const csr = await post('multi/issuers/generate/intermediate/internal', { common_name: 'Int', key_type: 'ec', key_name: 'int-key' });
    expect(csr.key_id).toMatch(/^[0-9a-f-]{36}$/);
    const signed = await post('multi/issuer/root-a/sign-intermediate', { csr: csr.csr, common_name: 'Int', ttl: '4000h' });
    const set = await post('multi/intermediate/set-signed', { certificate: signed.certificate });
    expect(set.imported_issuers).toHaveLength(1);
    const intId = set.imported_issuers[0] as string;
    expect(set.mapping).toEqual({ [intId]: csr.key_id });
    const intermediate = await get(`multi/issuer/${intId}`);
    expect(intermediate.ca_chain).toEqual([signed.certificate, rootA.certificate]);
    await post(`multi/issuer/${intId}`, { issuer_name: 'int' });
    await post('multi/config/issuers', { default: 'int' });
    const chain = (await v1(server, 'GET', 'multi/cert/ca_chain', { token: null })).body.data.ca_chain as string;
    expect(chain).toBe(`${signed.certificate}\n${rootA.certificate}`);
    const leaf = await post('multi/issue/web', { common_name: 'i.example.com' });
    expect(leaf.ca_chain).toEqual([signed.certificate, rootA.certificate]);
    const rootFile = files.path('chain-root.pem', rootA.certificate);
    const intFile = files.path('chain-int.pem', signed.certificate);
    expect(
      openssl(['verify', '-CAfile', rootFile, '-untrusted', intFile, files.path('chain-leaf.pem', leaf.certificate)]).output,
    ).toContain(': OK');

    const revoked = await ok(server, 'POST', 'multi/issuer/int/revoke', {});
    expect(revoked.body.data).toMatchObject({ revoked: true, usage: 'read-only,crl-signing,ocsp-signing' });
    expect(revoked.body.data.revocation_time).toBeGreaterThan(0);
    expect(revoked.body.warnings).toEqual([
      'This issuer is currently configured as the default issuer for this mount; operations such as certificate issuance ' +
        'may not work until a new default issuer is selected.',
    ]);
    const crlA = files.path('after-int.crl', (await get('multi/issuer/root-a/crl')).crl as string);
    expect(openssl(['crl', '-in', crlA, '-noout', '-text']).output).toContain(serialHex(signed.serial_number));
    const refused = await v1(server, 'POST', 'multi/issue/web', { body: { common_name: 'j.example.com' } });
    expect(refused.body.errors[0]).toContain('requested usage issuing-certificates');
    const again = await v1(server, 'POST', 'multi/issuer/int', { body: { usage: 'issuing-certificates' } });
    expect(again.body.errors[0]).toMatch(/^This issuer was revoked; unable to modify its usage/);
    await post('multi/config/issuers', { default: 'root-a' });
  });

  it('rotate names the new root next, replace makes it the default, default_follows_latest_issuer follows', async () => {
    const next = await post('multi/root/rotate/internal', { common_name: 'Root A2', key_type: 'ec', ttl: '8760h' });
    expect(next.issuer_name).toBe('next');
    expect((await get('multi/config/issuers')).default).toBe(rootA.issuer_id);
    expect(await post('multi/root/replace', {})).toEqual({ default: next.issuer_id, default_follows_latest_issuer: false });
    expect(await fetch(`${server.baseUrl}/v1/multi/ca/pem`).then((reply) => reply.text())).toBe(`${next.certificate}\n`);
    await post('multi/config/issuers', { default: 'root-a', default_follows_latest_issuer: true });
    const latest = await post('multi/issuers/generate/root/internal', { common_name: 'Latest', key_type: 'ec' });
    expect((await get('multi/config/issuers')).default).toBe(latest.issuer_id);
    await post('multi/config/issuers', { default: 'root-a', default_follows_latest_issuer: false });
  });

  it('keys: generate, import (once), reuse for a root, refuse deleting one in use; deleting issuers', async () => {
    const generated = await post('multi/keys/generate/exported', { key_type: 'rsa', key_bits: 2048, key_name: 'spare' });
    expect(generated).toMatchObject({ key_name: 'spare', key_type: 'rsa' });
    expect(generated.private_key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const imported = await ok(server, 'POST', 'multi/keys/import', { pem_bundle: generated.private_key, key_name: 'again' });
    expect(imported.body.data.key_id).toBe(generated.key_id);
    expect(imported.body.warnings).toEqual(['Key already imported, use key/ endpoint to update name.']);
    const reused = await post('multi/issuers/generate/root/existing', { common_name: 'Reused', key_ref: 'spare', ttl: '100h' });
    expect(reused.key_id).toBe(generated.key_id);
    expect(new X509Certificate(reused.certificate).publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const inUse = await v1(server, 'DELETE', 'multi/key/spare');
    expect(inUse.body.errors).toEqual([`Failed to Delete Key.  Key in Use by Issuer: ${reused.issuer_id}`]);
    expect((await v1(server, 'DELETE', `multi/issuer/${reused.issuer_id}`)).status).toBe(204);
    expect((await v1(server, 'DELETE', 'multi/issuer/already-gone')).status).toBe(204);
    expect((await v1(server, 'DELETE', 'multi/key/spare')).status).toBe(204);
    expect((await v1(server, 'GET', 'multi/key/spare')).status).toBe(400);
    const renamed = await ok(server, 'POST', 'multi/key/key-a', { key_name: '' });
    expect(renamed.body.warnings).toEqual([
      `Name successfully deleted, you will now need to reference this key by it's Id: ${rootA.key_id}`,
    ]);
    await post(`multi/key/${rootA.key_id}`, { key_name: 'key-a' });
  });

  it('deleting the default issuer warns, and single-issuer paths stop until a new default is set', async () => {
    await mountPki(server, 'solo');
    const only = await post('solo/root/generate/internal', { common_name: 'Solo', key_type: 'ec' });
    const deleted = await v1(server, 'DELETE', 'solo/issuer/default');
    expect(deleted.body.warnings).toEqual([
      `Deleted issuer ${only.issuer_id} (via issuer_ref default); this was configured as the default issuer. ` +
        'Operations without an explicit issuer will not work until a new default is configured.',
    ]);
    expect((await fetch(`${server.baseUrl}/v1/solo/ca/pem`)).status).toBe(204);
    expect((await get('solo/config/issuers')).default).toBe('');
    // Its key stays, and makes the next root.
    const again = await post('solo/issuers/generate/root/existing', { common_name: 'Solo 2', key_ref: only.key_id });
    expect((await get('solo/config/issuers')).default).toBe(again.issuer_id);
  });
});
