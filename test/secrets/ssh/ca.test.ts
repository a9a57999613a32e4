import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, startServer, type TestServer } from '../../helpers/app.js';
import { describeCertificate, fingerprint, sshKeygen, userKey, vault } from './support.js';

/**
 * The SSH engine's CA mode, judged by OpenSSH itself: `ssh-keygen -L` reads each certificate,
 * and `ssh-keygen -Y verify` with a `cert-authority` line accepts a signature made with the
 * certificate only when the CA signed it and it is valid at the given time.
 */
let server: TestServer;
let caPublicKey: string;

/** The certificate's validity window from `ssh-keygen -L`, in Unix seconds (the listing prints UTC here). */
function validity(listing: string): { from: number; to: number } {
  const match = /Valid: from (\S+) to (\S+)/.exec(listing);
  return { from: Date.parse(`${match?.[1]}Z`) / 1000, to: Date.parse(`${match?.[2]}Z`) / 1000 };
}

/** The virtual clock keeps running after it is set, so a certificate's start is checked within a window. */
const START = Date.parse('2030-01-01T00:00:00Z') / 1000;

/** Signs `message` with the certificate next to `keyPath`, and verifies it against the CA as `principal` at `time`. */
function caAccepts(dir: string, keyPath: string, ca: string, principal: string, time: string): boolean {
  writeFileSync(join(dir, 'msg'), 'hello');
  writeFileSync(join(dir, 'signers'), `${principal} cert-authority ${ca}`);
  sshKeygen(['-Y', 'sign', '-f', `${keyPath}-cert.pub`, '-n', 'file', join(dir, 'msg')]);
  try {
    sshKeygen(
      ['-Y', 'verify', '-f', join(dir, 'signers'), '-I', principal, '-n', 'file', '-s', join(dir, 'msg.sig'), `-Overify-time=${time}`],
      'hello',
    );
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  server = await startServer();
  await control(server, 'POST', '/clock', { set: '2030-01-01T00:00:00Z', force: true });
  expect((await vault(server, 'POST', 'sys/mounts/ssh', { type: 'ssh' })).status).toBe(204);
  const ca = await vault(server, 'POST', 'ssh/config/ca', { key_type: 'ed25519' });
  expect(ca.status).toBe(200);
  caPublicKey = ca.body.data.public_key;
  const role = await vault(server, 'POST', 'ssh/roles/dev', {
    key_type: 'ca',
    allow_user_certificates: true,
    allowed_users: 'alice,bob',
    default_user: 'alice',
    allowed_extensions: 'permit-pty,permit-port-forwarding',
    default_extensions: { 'permit-pty': '' },
    allowed_critical_options: 'force-command',
    ttl: '1h',
    max_ttl: '2h',
  });
  expect(role.status).toBe(204);
});
afterAll(() => server.close());

describe('ssh CA', () => {
  it('generates an ed25519 CA, shows it at public_key unauthenticated, and refuses a second one', async () => {
    expect(caPublicKey).toMatch(/^ssh-ed25519 AAAA\S+\n$/);
    const raw = await fetch(`${server.baseUrl}/v1/ssh/public_key`);
    expect(raw.status).toBe(200);
    expect(await raw.text()).toBe(caPublicKey);
    expect((await vault(server, 'GET', 'ssh/config/ca')).body.data.public_key).toBe(caPublicKey);
    const again = await vault(server, 'POST', 'ssh/config/ca', {});
    expect(again.status).toBe(400);
    expect(again.body.errors).toEqual(['keys are already configured; delete them before reconfiguring']);
  });

  it('signs a user key into a certificate ssh-keygen reads, valid on the virtual clock', async () => {
    const key = userKey('ed25519');
    const signed = await vault(server, 'POST', 'ssh/sign/dev', {
      public_key: key.publicKey,
      valid_principals: 'alice,bob',
      critical_options: { 'force-command': 'ls' },
    });
    expect(signed.status).toBe(200);
    expect(signed.body.data.serial_number).toMatch(/^[0-9a-f]{1,16}$/);
    const listing = describeCertificate(key.dir, signed.body.data.signed_key);
    const keyHash = execFileSync('sh', ['-c', `cut -d' ' -f2 ${key.path}.pub | base64 -d | sha256sum | cut -d' ' -f1`], {
      encoding: 'utf8',
    }).trim();
    expect(listing).toContain('Type: ssh-ed25519-cert-v01@openssh.com user certificate');
    expect(listing).toContain(`Signing CA: ED25519 ${fingerprint(key.dir, caPublicKey)}`);
    expect(listing).toContain(`Key ID: "vault-root-${keyHash}"`);
    expect(listing).toContain(`Serial: ${BigInt(`0x${signed.body.data.serial_number}`).toString()}`);
    const valid = validity(listing);
    expect(valid.from - (START - 30)).toBeGreaterThanOrEqual(0);
    expect(valid.from - (START - 30)).toBeLessThan(60);
    expect(valid.to - valid.from).toBe(3600 + 30);
    expect(listing).toMatch(/Principals: \n\s+alice\n\s+bob\n/);
    expect(listing).toMatch(/Critical Options: \n\s+force-command ls\n/);
    expect(listing).toMatch(/Extensions: \n\s+permit-pty\n/);
    expect(caAccepts(key.dir, key.path, caPublicKey, 'alice', '20300101003000')).toBe(true);
    // Past valid_before, and for a principal the certificate does not name, the CA check refuses.
    expect(caAccepts(key.dir, key.path, caPublicKey, 'alice', '20300101013000')).toBe(false);
    expect(caAccepts(key.dir, key.path, caPublicKey, 'carol', '20300101003000')).toBe(false);
  });

  it('checks requests against the role with the real errors, and a refused request signs nothing', async () => {
    const key = userKey('ed25519');
    const cases: [Record<string, unknown>, string][] = [
      [{ valid_principals: 'carol' }, 'carol is not a valid value for valid_principals'],
      [{ extensions: { 'permit-X11-forwarding': '' } }, 'extensions [permit-X11-forwarding] are not on allowed list'],
      [{ critical_options: { 'source-address': '10.0.0.1' } }, 'critical options not on allowed list: [source-address]'],
      [{ ttl: '3h' }, 'ttl is larger than maximum allowed 7200'],
      [{ cert_type: 'host' }, "cert_type 'host' is not allowed by role"],
      [{ cert_type: 'both' }, "cert_type must be either 'user' or 'host'"],
      [{ key_id: 'mine' }, 'setting key_id is not allowed by role'],
      [{ public_key: 'ssh-ed25519 !!!' }, 'failed to parse public_key as SSH key: ssh: no key found'],
      [{ public_key: '' }, 'missing public_key'],
    ];
    for (const [extra, error] of cases) {
      const answer = await vault(server, 'POST', 'ssh/sign/dev', { public_key: key.publicKey, ...extra });
      expect({ extra, status: answer.status, errors: answer.body.errors }).toEqual({ extra, status: 400, errors: [error] });
    }
    const unknown = await vault(server, 'POST', 'ssh/sign/nope', { public_key: key.publicKey });
    expect(unknown.body.errors).toEqual(['Unknown role: nope']);
    const badRole = await vault(server, 'POST', 'ssh/roles/bad', { key_type: 'ca' });
    expect(badRole.body.errors).toEqual(["Either 'allow_user_certificates' or 'allow_host_certificates' must be set to 'true'"]);
    expect((await vault(server, 'GET', 'ssh/roles/bad')).status).toBe(404);
    expect((await vault(server, 'POST', 'ssh/roles/bad', {})).body.errors).toEqual(['missing key type']);
  });

  it('issues a key pair with a certificate; the private key is one ssh-keygen reads', async () => {
    const issued = await vault(server, 'POST', 'ssh/issue/dev', { key_type: 'ed25519', valid_principals: 'bob', ttl: '30m' });
    expect(issued.status).toBe(200);
    expect(issued.body.data.private_key_type).toBe('ed25519');
    const { dir, path } = userKey('ed25519');
    writeFileSync(path, issued.body.data.private_key, { mode: 0o600 });
    const derived = sshKeygen(['-y', '-f', path]).trim().split(' ').slice(0, 2).join(' ');
    const listing = describeCertificate(dir, issued.body.data.signed_key);
    expect(listing).toContain(`Public key: ED25519-CERT ${fingerprint(dir, `${derived}\n`)}`);
    const valid = validity(listing);
    expect(valid.from - (START - 30)).toBeLessThan(60);
    expect(valid.to - valid.from).toBe(1800 + 30);
    expect(caAccepts(dir, path, caPublicKey, 'bob', '20300101001000')).toBe(true);
  });

  it('keeps the CA private key sealed at rest', () => {
    const rows = server.app.runtime.store.sqlite.prepare('SELECT key, value FROM secret_entries').all() as { key: string; value: string }[];
    const caRow = rows.find((row) => row.key === 'config/ca_private_key');
    expect(caRow).toBeDefined();
    expect(rows.filter((row) => row.value.includes('PRIVATE KEY'))).toEqual([]);
  });
});

describe('ssh CA with imported and EC keys', () => {
  it('imports an RSA CA written by ssh-keygen and signs with rsa-sha2-256', async () => {
    expect((await vault(server, 'POST', 'sys/mounts/ssh-rsa', { type: 'ssh' })).status).toBe(204);
    const ca = userKey('rsa', 2048);
    const half = await vault(server, 'POST', 'ssh-rsa/config/ca', { public_key: ca.publicKey });
    expect(half.body.errors).toEqual([
      'only one of public_key and private_key set; both must be set to use, or both must be blank to auto-generate',
    ]);
    const imported = await vault(server, 'POST', 'ssh-rsa/config/ca', {
      generate_signing_key: false,
      public_key: ca.publicKey,
      private_key: readFileSync(ca.path, 'utf8'),
    });
    expect(imported.status).toBe(204);
    await vault(server, 'POST', 'ssh-rsa/roles/any', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*' });
    const key = userKey('ecdsa');
    const signed = await vault(server, 'POST', 'ssh-rsa/sign/any', { public_key: key.publicKey, valid_principals: 'deploy' });
    const listing = describeCertificate(key.dir, signed.body.data.signed_key);
    expect(listing).toContain(`Signing CA: RSA ${fingerprint(key.dir, ca.publicKey)} (using rsa-sha2-256)`);
    expect(caAccepts(key.dir, key.path, ca.publicKey, 'deploy', '20300101000500')).toBe(true);
  });

  it('generates a P-384 CA and signs host certificates for allowed subdomains only', async () => {
    expect((await vault(server, 'POST', 'sys/mounts/ssh-host', { type: 'ssh' })).status).toBe(204);
    const ca = await vault(server, 'POST', 'ssh-host/config/ca', { key_type: 'ec', key_bits: 384 });
    expect(ca.body.data.public_key).toMatch(/^ecdsa-sha2-nistp384 /);
    await vault(server, 'POST', 'ssh-host/roles/hosts', {
      key_type: 'ca',
      allow_host_certificates: true,
      allowed_domains: 'example.com',
      allow_subdomains: true,
      key_id_format: '{{role_name}}-host',
    });
    const key = userKey('ed25519');
    const refused = await vault(server, 'POST', 'ssh-host/sign/hosts', {
      public_key: key.publicKey,
      cert_type: 'host',
      valid_principals: 'example.com',
    });
    expect(refused.body.errors).toEqual(['example.com is not a valid value for valid_principals']);
    const signed = await vault(server, 'POST', 'ssh-host/sign/hosts', {
      public_key: key.publicKey,
      cert_type: 'host',
      valid_principals: 'web.example.com',
    });
    const listing = describeCertificate(key.dir, signed.body.data.signed_key);
    expect(listing).toContain('host certificate');
    expect(listing).toContain('Key ID: "hosts-host"');
    expect(listing).toContain(`Signing CA: ECDSA ${fingerprint(key.dir, ca.body.data.public_key)}`);
  });

  it('hands out one-time passwords that verify uses up', async () => {
    await vault(server, 'POST', 'ssh/roles/otp', { key_type: 'otp', default_user: 'ops', cidr_list: '10.0.0.0/8' });
    const creds = await vault(server, 'POST', 'ssh/creds/otp', { ip: '10.1.2.3' });
    expect(creds.body.data).toMatchObject({ key_type: 'otp', username: 'ops', ip: '10.1.2.3', port: 22 });
    const verified = await fetch(`${server.baseUrl}/v1/ssh/verify`, { method: 'POST', body: JSON.stringify({ otp: creds.body.data.key }) });
    expect((await verified.json()).data).toEqual({ username: 'ops', ip: '10.1.2.3', role_name: 'otp' });
    const again = await vault(server, 'POST', 'ssh/verify', { otp: creds.body.data.key });
    expect(again.body.errors).toEqual(['OTP not found']);
  });
});
