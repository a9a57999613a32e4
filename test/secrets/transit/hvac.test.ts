import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { hvacInterpreter as interpreter, missingHvacReason as missingReason, runPython } from '../../helpers/python.js';

/**
 * hvac's transit helpers end to end, with the Python side checking what it can on its own
 * (ciphertext prefixes, batch order, the data key round trip). Skipped without hvac locally; fails in CI.
 */
if (!interpreter && !process.env.CI) console.warn(`skipping the hvac transit test: ${missingReason}`);

const SCRIPT = `
import base64, json, os, hvac
from hvac import exceptions

client = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"])
client.sys.enable_secrets_engine("transit")
t = client.secrets.transit
b64 = lambda s: base64.b64encode(s.encode()).decode()
out = {}

def outcome(call):
    try:
        call()
        return "ok"
    except exceptions.InvalidRequest as error:
        return "invalid: " + str(error).split(", on ")[0]
    except exceptions.InvalidPath:
        return "not found"

t.create_key(name="app", exportable=True, allow_plaintext_backup=True)
t.create_key(name="signer", key_type="ecdsa-p256")
out["listed"] = t.list_keys()["data"]["keys"]
key = t.read_key(name="app")["data"]
out["read"] = {k: key[k] for k in ("type", "latest_version", "exportable", "supports_encryption")}

ct = t.encrypt_data(name="app", plaintext=b64("hello hvac"))["data"]["ciphertext"]
out["prefix"] = ct[:9]
out["decrypted"] = base64.b64decode(t.decrypt_data(name="app", ciphertext=ct)["data"]["plaintext"]).decode()
items = [{"plaintext": b64("a")}, {"plaintext": b64("b")}]
batch = t.encrypt_data(name="app", plaintext="", batch_input=items)["data"]["batch_results"]
plain = t.decrypt_data(name="app", ciphertext="", batch_input=[{"ciphertext": r["ciphertext"]} for r in batch])["data"]["batch_results"]
out["batch"] = [base64.b64decode(r["plaintext"]).decode() for r in plain]

t.rotate_key(name="app")
out["rewrapped"] = t.rewrap_data(name="app", ciphertext=ct)["data"]["ciphertext"][:9]
t.update_key_configuration(name="app", min_decryption_version=2, deletion_allowed=True)
out["too_old"] = outcome(lambda: t.decrypt_data(name="app", ciphertext=ct))
dk = t.generate_data_key(name="app", key_type="plaintext", bits=256)["data"]
opened = t.decrypt_data(name="app", ciphertext=dk["ciphertext"])["data"]["plaintext"]
out["datakey"] = base64.b64decode(opened) == base64.b64decode(dk["plaintext"])
out["exported_versions"] = sorted(t.export_key(name="app", key_type="encryption-key")["data"]["keys"].keys())

sig = t.sign_data(name="signer", hash_input=b64("doc"), hash_algorithm="sha2-384")["data"]["signature"]
out["verified"] = t.verify_signed_data(name="signer", hash_input=b64("doc"), signature=sig, hash_algorithm="sha2-384")["data"]["valid"]
out["tampered"] = t.verify_signed_data(name="signer", hash_input=b64("doc2"), signature=sig, hash_algorithm="sha2-384")["data"]["valid"]
mac = t.generate_hmac(name="app", hash_input=b64("doc"), algorithm="sha2-512")["data"]["hmac"]
out["hmac_ok"] = t.verify_signed_data(name="app", hash_input=b64("doc"), hmac=mac, hash_algorithm="sha2-512")["data"]["valid"]
out["hash"] = t.hash_data(hash_input=b64("doc"), algorithm="sha2-256", output_format="hex")["data"]["sum"]
out["random_len"] = len(base64.b64decode(t.generate_random_bytes(n_bytes=24)["data"]["random_bytes"]))

backup = t.backup_key(name="app")["data"]["backup"]
t.restore_key(backup=backup, name="app-restored")
out["restored_latest"] = t.read_key(name="app-restored")["data"]["latest_version"]
out["missing_key"] = outcome(lambda: t.encrypt_data(name="nokey-but-create", plaintext="@@"))
out["not_created"] = outcome(lambda: t.read_key(name="nokey-but-create"))
t.delete_key(name="app")
out["after_delete"] = outcome(lambda: t.read_key(name="app"))
print(json.dumps(out))
`;

describe.skipIf(!interpreter && !process.env.CI)('a real client: hvac on the transit engine', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('creates, encrypts, rotates, rewraps, signs, HMACs, backs up and deletes through hvac', async () => {
    if (!interpreter) throw new Error(`CI is set but ${missingReason}`);
    const run = await runPython(interpreter, SCRIPT, { VAULT_ADDR: server.baseUrl, VAULT_TOKEN: ROOT_TOKEN });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      listed: ['app', 'signer'],
      read: { type: 'aes256-gcm96', latest_version: 1, exportable: true, supports_encryption: true },
      prefix: 'vault:v1:',
      decrypted: 'hello hvac',
      batch: ['a', 'b'],
      rewrapped: 'vault:v2:',
      too_old: 'invalid: ciphertext or signature version is disallowed by policy (too old)',
      datakey: true,
      exported_versions: ['2'],
      verified: true,
      tampered: false,
      hmac_ok: true,
      hash: createHash('sha256').update('doc').digest('hex'),
      random_len: 24,
      restored_latest: 2,
      missing_key: 'invalid: illegal base64 data at input byte 0',
      not_created: 'not found',
      after_delete: 'not found',
    });
  });
});
