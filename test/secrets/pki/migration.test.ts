import { X509Certificate, createPrivateKey } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MountStorage } from '../../../src/secrets/storage/mount-storage.js';
import { secretEntries } from '../../../src/store/tables.js';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';
import { mountPki, ok } from './support.js';

/** A mount written before issuers existed (one CA bundle) reads and issues as before, migrated on first use. */
describe('PKI stores from before issuers', () => {
  let server: TestServer;
  let root: { certificate: string; private_key: string; serial_number: string };
  let revokedLeaf: { serial_number: string; certificate: string };
  const storageOf = async (mount: string) => {
    const uuid = (await ok(server, 'GET', `sys/mounts/${mount}`)).body.data.uuid as string;
    return { uuid, storage: new MountStorage(server.app.runtime.store.db, uuid) };
  };
  const keysIn = (uuid: string) =>
    server.app.runtime.store.db
      .select({ key: secretEntries.key })
      .from(secretEntries)
      .where(eq(secretEntries.mountUuid, uuid))
      .all()
      .map((row) => row.key);

  beforeAll(async () => {
    server = await startServer();
    await mountPki(server, 'source');
    root = (await ok(server, 'POST', 'source/root/generate/exported', { common_name: 'Legacy Root', key_type: 'ec', ttl: '8760h' })).body
      .data;
    await ok(server, 'POST', 'source/roles/any', { allow_any_name: true, key_type: 'ec', ttl: '1h' });
    revokedLeaf = (await ok(server, 'POST', 'source/issue/any', { common_name: 'old.test' })).body.data;
  });
  afterAll(() => server.close());

  it('turns config/ca_bundle into one default issuer and key, keeping revocations on its CRL', async () => {
    await mountPki(server, 'legacy');
    const { uuid, storage } = await storageOf('legacy');
    const pkcs8 = (createPrivateKey(root.private_key).export({ format: 'pem', type: 'pkcs8' }) as string).trimEnd();
    storage.put('config/ca_bundle', { certificate: root.certificate, privateKey: pkcs8, chain: [] });
    storage.put('ca', root.certificate);
    const serial = revokedLeaf.serial_number.replace(/:/g, '-');
    storage.put(`certs/${serial}`, { certificate: revokedLeaf.certificate, notAfter: Date.now() + 3_600_000 });
    storage.put(`revoked/${serial}`, { revocation_time: 1_700_000_000, revocation_time_rfc3339: '2023-11-14T22:13:20Z' });

    expect(await (await fetch(`${server.baseUrl}/v1/legacy/ca/pem`)).text()).toBe(`${root.certificate}\n`);
    const listed = (await v1(server, 'GET', 'legacy/issuers?list=true', { token: null })).body.data;
    expect(listed.keys).toHaveLength(1);
    const [id] = listed.keys as string[];
    expect(listed.key_info[id as string]).toMatchObject({ is_default: true, serial_number: root.serial_number });
    expect((await ok(server, 'GET', 'legacy/key/default')).body.data).toMatchObject({ key_type: 'ec' });
    expect(keysIn(uuid)).not.toContain('config/ca_bundle');

    await ok(server, 'POST', 'legacy/roles/any', { allow_any_name: true, key_type: 'ec', ttl: '1h' });
    const leaf = (await ok(server, 'POST', 'legacy/issue/any', { common_name: 'new.test' })).body.data;
    expect(new X509Certificate(leaf.certificate).verify(new X509Certificate(root.certificate).publicKey)).toBe(true);
    await ok(server, 'GET', 'legacy/crl/rotate');
    const crl = (await ok(server, 'GET', `legacy/issuer/${id}/crl`)).body.data.crl as string;
    const der = Buffer.from(crl.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    expect(der.includes(Buffer.from(revokedLeaf.serial_number.replace(/:/g, ''), 'hex'))).toBe(true);
    expect((await v1(server, 'GET', `legacy/cert/${revokedLeaf.serial_number}`)).body.data.revocation_time).toBe(1_700_000_000);
  });

  it('a mount whose root was deleted (only the CA certificate kept) becomes one issuer without a key', async () => {
    await mountPki(server, 'legacy-deleted');
    const { storage } = await storageOf('legacy-deleted');
    storage.put('ca', root.certificate);
    const issuer = (await ok(server, 'GET', 'legacy-deleted/issuer/default')).body.data;
    expect(issuer).toMatchObject({ certificate: root.certificate, key_id: '' });
    expect((await v1(server, 'GET', 'legacy-deleted/keys?list=true')).status).toBe(404);
    await ok(server, 'POST', 'legacy-deleted/roles/any', { allow_any_name: true, key_type: 'ec' });
    const refused = await v1(server, 'POST', 'legacy-deleted/issue/any', { body: { common_name: 'x.test' } });
    expect(refused.status).toBe(400);
  });
});
