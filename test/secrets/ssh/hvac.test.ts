import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { hvacInterpreter, missingHvacReason, runPython } from '../../helpers/python.js';
import { sshKeygen, userKey, vault } from './support.js';

/**
 * The SSH engine from hvac. hvac 0.11.2 (Debian's python3-hvac) has no `secrets.ssh` family, so a
 * script uses its generic `write`/`read`/`list`/`delete`, as its users do; ssh-keygen then reads
 * the certificate hvac got back.
 */
if (!hvacInterpreter && !process.env.CI) console.warn(`skipping the hvac SSH test: ${missingHvacReason}`);

let server: TestServer;
const key = userKey('ed25519');

beforeAll(async () => {
  server = await startServer();
  expect((await vault(server, 'POST', 'sys/mounts/ssh', { type: 'ssh' })).status).toBe(204);
});
afterAll(() => {
  rmSync(key.dir, { recursive: true, force: true });
  return server.close();
});

const SCRIPT = `
import os, hvac
client = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"])
ca = client.write("ssh/config/ca", generate_signing_key=True, key_type="ec", key_bits=256)
print(ca["data"]["public_key"].split(" ")[0])
client.write("ssh/roles/dev", key_type="ca", allow_user_certificates=True, allowed_users="deploy,ops",
    default_user="deploy", default_extensions={"permit-pty": ""}, ttl="30m")
print(client.list("ssh/roles")["data"]["keys"])
print(client.read("ssh/roles/dev")["data"]["allowed_users"])
signed = client.write("ssh/sign/dev", public_key=os.environ["USER_KEY"], valid_principals="ops")
open(os.environ["CERT_PATH"], "w").write(signed["data"]["signed_key"])
print(signed["data"]["serial_number"] != "")
try:
    client.write("ssh/sign/dev", public_key=os.environ["USER_KEY"], valid_principals="root")
except hvac.exceptions.InvalidRequest as error:
    print(str(error).split(",")[0])
client.delete("ssh/roles/dev")
print(client.read("ssh/roles/dev"))
`;

describe.skipIf(!hvacInterpreter && !process.env.CI)('a real client: hvac with the SSH engine', () => {
  it('configures a CA and a role, signs a key ssh-keygen reads, and gets the real refusal', async () => {
    if (!hvacInterpreter) throw new Error(missingHvacReason);
    const certPath = join(key.dir, 'id-cert.pub');
    writeFileSync(certPath, '');
    const result = await runPython(hvacInterpreter, SCRIPT, {
      VAULT_ADDR: server.baseUrl,
      VAULT_TOKEN: ROOT_TOKEN,
      USER_KEY: key.publicKey.trim(),
      CERT_PATH: certPath,
    });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n')).toEqual([
      'ecdsa-sha2-nistp256',
      "['dev']",
      'deploy,ops',
      'True',
      'root is not a valid value for valid_principals',
      'None',
    ]);
    const listing = sshKeygen(['-L', '-f', certPath]);
    expect(listing).toContain('Type: ssh-ed25519-cert-v01@openssh.com user certificate');
    expect(listing).toMatch(/Principals:\s+ops/);
    expect(listing).toContain('permit-pty');
  });
});
