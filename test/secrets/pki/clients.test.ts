import vault from 'node-vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { hvacInterpreter, missingHvacReason as hvacMissing, runPython } from '../../helpers/python.js';
import { hasOpenssl, openssl, scratch } from './support.js';

/** The main flow (root → role → issue → revoke → read CRL) driven unchanged by hvac and node-vault. */

if (!hvacInterpreter && !process.env.CI) console.warn(`skipping the hvac PKI flow: ${hvacMissing}`);

const HVAC_SCRIPT = `
import json, os, hvac

client = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"])
client.sys.enable_secrets_engine(backend_type="pki", path="hvac-pki", config={"max_lease_ttl": "87600h"})
root = client.secrets.pki.generate_root(type="internal", common_name="hvac Root",
                                       extra_params={"ttl": "8760h", "key_type": "ec"}, mount_point="hvac-pki")
client.secrets.pki.set_urls({"crl_distribution_points": [os.environ["VAULT_ADDR"] + "/v1/hvac-pki/crl"]}, mount_point="hvac-pki")
client.secrets.pki.create_or_update_role("web", mount_point="hvac-pki",
                                        extra_params={"allowed_domains": ["example.com"], "allow_subdomains": True, "key_type": "ec"})
role = client.secrets.pki.read_role("web", mount_point="hvac-pki")["data"]
issued = client.secrets.pki.generate_certificate("web", common_name="hvac.example.com", extra_params={"ttl": "1h"},
                                                 mount_point="hvac-pki")["data"]
listed = client.secrets.pki.list_certificates(mount_point="hvac-pki")["data"]["keys"]
revoked = client.secrets.pki.revoke_certificate(issued["serial_number"], mount_point="hvac-pki")["data"]
crl = client.secrets.pki.read_crl(mount_point="hvac-pki")
ca = client.secrets.pki.read_ca_certificate(mount_point="hvac-pki")
fetched = client.secrets.pki.read_certificate(issued["serial_number"], mount_point="hvac-pki")["data"]
denied = None
try:
    client.secrets.pki.generate_certificate("web", common_name="evil.org", mount_point="hvac-pki")
except hvac.exceptions.InvalidRequest as error:
    denied = str(error)
print(json.dumps({"root": root["data"]["certificate"], "role": role, "issued": issued, "listed": listed, "revoked": revoked,
                  "crl": crl, "ca": ca, "fetched": fetched, "denied": denied}))
`;

/** The issuers API through hvac's generic calls (its PKI helpers predate issuers) next to its helpers. */
const HVAC_ISSUERS_SCRIPT = `
import json, os, hvac

client = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"])
client.sys.enable_secrets_engine(backend_type="pki", path="hvac-multi", config={"max_lease_ttl": "87600h"})
first = client.secrets.pki.generate_root(type="internal", common_name="First", mount_point="hvac-multi",
                                        extra_params={"ttl": "8760h", "key_type": "ec", "issuer_name": "first"})["data"]
second = client.write("hvac-multi/root/rotate/internal", common_name="Second", ttl="8760h", key_type="ec")["data"]
listed = client.list("hvac-multi/issuers")["data"]
renamed = client.write("hvac-multi/issuer/next", issuer_name="second", leaf_not_after_behavior="truncate")["data"]
client.write("hvac-multi/config/issuers", default="second")
client.secrets.pki.create_or_update_role("web", mount_point="hvac-multi",
                                        extra_params={"allowed_domains": ["example.com"], "allow_subdomains": True, "key_type": "ec"})
issued = client.secrets.pki.generate_certificate("web", common_name="m.example.com", mount_point="hvac-multi")["data"]
by_first = client.write("hvac-multi/issuer/first/issue/web", common_name="f.example.com")["data"]
keys = client.list("hvac-multi/keys")["data"]
missing = None
try:
    client.read("hvac-multi/issuer/nope")
except hvac.exceptions.InvalidRequest as error:
    missing = str(error)
client.secrets.pki.delete_root(mount_point="hvac-multi")
after = client.list("hvac-multi/issuers")
print(json.dumps({"first": first, "second": second, "listed": listed, "renamed": renamed, "issued": issued,
                  "by_first": by_first, "keys": keys, "missing": missing, "after": after}))
`;

describe('PKI with real clients', () => {
  let server: TestServer;
  const files = scratch();
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    files.cleanup();
    await server.close();
  });

  it.skipIf(!hvacInterpreter && !process.env.CI)('hvac: root, role, issue, revoke, read the CRL', async () => {
    if (!hvacInterpreter) throw new Error(`CI is set but ${hvacMissing}`);
    const run = await runPython(hvacInterpreter, HVAC_SCRIPT, { VAULT_ADDR: server.baseUrl, VAULT_TOKEN: ROOT_TOKEN });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.role).toMatchObject({ allowed_domains: ['example.com'], allow_subdomains: true, key_type: 'ec', key_bits: 256 });
    expect(result.listed).toContain(result.issued.serial_number);
    expect(result.revoked.revocation_time).toBeGreaterThan(0);
    expect(result.fetched.revocation_time).toBe(result.revoked.revocation_time);
    expect(result.ca).toBe(`${result.root}\n`);
    expect(result.crl).toMatch(/^-----BEGIN X509 CRL-----/);
    expect(result.denied).toContain('common name evil.org not allowed by this role');
    if (hasOpenssl) {
      const text = openssl(['crl', '-noout', '-text'], result.crl).output;
      expect(text).toContain((result.issued.serial_number as string).replace(/:/g, '').toUpperCase());
      const check = openssl([
        'verify',
        '-crl_check',
        '-CAfile',
        files.path('hvac-root.pem', result.root),
        '-CRLfile',
        files.path('hvac.crl', result.crl),
        files.path('hvac-leaf.pem', result.issued.certificate),
      ]);
      expect(check.output).toContain('certificate revoked');
    }
  });

  it.skipIf(!hvacInterpreter && !process.env.CI)('hvac: two roots as issuers, rename, default, issue by either, delete all', async () => {
    if (!hvacInterpreter) throw new Error(`CI is set but ${hvacMissing}`);
    const run = await runPython(hvacInterpreter, HVAC_ISSUERS_SCRIPT, { VAULT_ADDR: server.baseUrl, VAULT_TOKEN: ROOT_TOKEN });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.first.issuer_name).toBe('first');
    expect(result.second.issuer_name).toBe('next');
    expect(result.listed.keys).toEqual(expect.arrayContaining([result.first.issuer_id, result.second.issuer_id]));
    expect(result.listed.key_info[result.first.issuer_id].is_default).toBe(true);
    expect(result.renamed).toMatchObject({
      issuer_id: result.second.issuer_id,
      issuer_name: 'second',
      leaf_not_after_behavior: 'truncate',
    });
    expect(result.issued.issuing_ca).toBe(result.second.certificate);
    expect(result.by_first.issuing_ca).toBe(result.first.certificate);
    expect(result.keys.keys).toEqual(expect.arrayContaining([result.first.key_id, result.second.key_id]));
    expect(result.missing).toContain('unable to find PKI issuer for reference: nope');
    expect(result.after).toBeNull();
  });

  it('node-vault: root, role, issue, revoke, read the CRL', async () => {
    const client = vault({ endpoint: server.baseUrl, token: ROOT_TOKEN });
    await client.mount({ mount_point: 'nv-pki', type: 'pki', config: { max_lease_ttl: '87600h' } });
    const root = await client.write('nv-pki/root/generate/internal', { common_name: 'node-vault Root', ttl: '8760h', key_type: 'ec' });
    await client.write('nv-pki/roles/web', { allowed_domains: ['example.com'], allow_subdomains: true, key_type: 'ec' });
    const issued = await client.write('nv-pki/issue/web', { common_name: 'nv.example.com', ttl: '1h' });
    expect(issued.data.ca_chain).toEqual([root.data.certificate]);
    expect((await client.list('nv-pki/certs')).data.keys).toContain(issued.data.serial_number);
    const revoked = await client.write('nv-pki/revoke', { serial_number: issued.data.serial_number });
    expect(revoked.data.revocation_time).toBeGreaterThan(0);
    const crl = await client.read('nv-pki/cert/crl');
    expect(crl.data.certificate).toMatch(/^-----BEGIN X509 CRL-----/);
    await expect(client.write('nv-pki/issue/web', { common_name: 'evil.org' })).rejects.toThrow(
      'common name evil.org not allowed by this role',
    );
    if (hasOpenssl) {
      const check = openssl([
        'verify',
        '-crl_check',
        '-CAfile',
        files.path('nv-root.pem', root.data.certificate),
        '-CRLfile',
        files.path('nv.crl', crl.data.certificate),
        files.path('nv-leaf.pem', issued.data.certificate),
      ]);
      expect(check.output).toContain('certificate revoked');
    }
  });
});
