import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { hvacInterpreter as interpreter, missingHvacReason as missingReason, runPython } from '../../helpers/python.js';

/**
 * hvac's key/value helpers against `secret/` (v2, as in development mode) and a v1 mount, under a
 * token whose policy allows some paths and denies others. Skipped without hvac locally; fails in CI.
 */
if (!interpreter && !process.env.CI) console.warn(`skipping the hvac key/value test: ${missingReason}`);

const POLICY = `
path "secret/data/app/*" { capabilities = ["create", "read", "update", "delete"] }
path "secret/metadata/app/*" { capabilities = ["read", "list", "update", "delete"] }
path "secret/delete/app/*" { capabilities = ["update"] }
path "secret/undelete/app/*" { capabilities = ["update"] }
path "secret/destroy/app/*" { capabilities = ["update"] }
path "secret/data/app/admin" { capabilities = ["deny"] }
path "kv1/app/*" { capabilities = ["create", "read", "update", "delete", "list"] }
`;

const SCRIPT = `
import json, os, hvac
from hvac import exceptions

root = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"])
mounts = root.sys.list_mounted_secrets_engines()["data"]
root.sys.enable_secrets_engine("kv", path="kv1", options={"version": "1"})
root.sys.create_or_update_policy(name="kv-app", policy=os.environ["POLICY"])
root.secrets.kv.v2.create_or_update_secret(path="app/admin", secret={"root": "only"})
root.secrets.kv.v2.create_or_update_secret(path="elsewhere/x", secret={"n": 1})
token = root.auth.token.create(policies=["kv-app"], ttl="1h")["auth"]["client_token"]
app = hvac.Client(url=os.environ["VAULT_ADDR"], token=token)
kv2 = app.secrets.kv.v2
out = {"secret_mount": mounts["secret/"]["options"]}

def outcome(call):
    try:
        call()
        return "ok"
    except exceptions.Forbidden:
        return "forbidden"
    except exceptions.InvalidPath:
        return "not found"
    except exceptions.InvalidRequest as error:
        return "invalid: " + str(error)

out["v1_write"] = kv2.create_or_update_secret(path="app/db", secret={"user": "svc", "port": 5432})["data"]["version"]
out["v2_write"] = kv2.create_or_update_secret(path="app/db", secret={"user": "svc2"}, cas=1)["data"]["version"]
out["cas_mismatch"] = outcome(lambda: kv2.create_or_update_secret(path="app/db", secret={"x": 1}, cas=1))
out["latest"] = kv2.read_secret_version(path="app/db")["data"]
out["first"] = kv2.read_secret_version(path="app/db", version=1)["data"]["data"]
kv2.patch(path="app/db", secret={"extra": True})
out["patched"] = kv2.read_secret_version(path="app/db")["data"]["data"]
kv2.create_or_update_secret(path="app/other", secret={"k": "v"})
out["listed"] = kv2.list_secrets(path="app")["data"]["keys"]

kv2.delete_latest_version_of_secret(path="app/db")
out["after_soft_delete"] = outcome(lambda: kv2.read_secret_version(path="app/db"))
kv2.undelete_secret_versions(path="app/db", versions=[3])
out["undeleted"] = kv2.read_secret_version(path="app/db")["data"]["metadata"]["version"]
kv2.delete_secret_versions(path="app/db", versions=[2])
kv2.destroy_secret_versions(path="app/db", versions=[1])
out["destroyed_read"] = outcome(lambda: kv2.read_secret_version(path="app/db", version=1))
kv2.update_metadata(path="app/db", max_versions=5, cas_required=False)
meta = kv2.read_secret_metadata(path="app/db")["data"]
out["metadata"] = {"max_versions": meta["max_versions"], "current_version": meta["current_version"],
    "versions": {k: {"destroyed": v["destroyed"], "deleted": v["deletion_time"] != ""} for k, v in meta["versions"].items()}}

out["denied_admin"] = outcome(lambda: kv2.read_secret_version(path="app/admin"))
out["denied_elsewhere"] = outcome(lambda: kv2.read_secret_version(path="elsewhere/x"))
out["denied_config"] = outcome(lambda: kv2.read_configuration())
out["denied_root_list"] = outcome(lambda: kv2.list_secrets(path=""))

kv2.delete_metadata_and_all_versions(path="app/other")
out["after_metadata_delete"] = outcome(lambda: kv2.read_secret_metadata(path="app/other"))

root.secrets.kv.v2.configure(max_versions=7, delete_version_after="1h")
out["config"] = root.secrets.kv.v2.read_configuration()["data"]
root.secrets.kv.v2.configure(max_versions=0, delete_version_after="0s")

kv1 = app.secrets.kv.v1
kv1.create_or_update_secret(path="app/cfg", secret={"url": "https://example", "retries": 3}, mount_point="kv1")
out["kv1_read"] = kv1.read_secret(path="app/cfg", mount_point="kv1")["data"]
out["kv1_list"] = kv1.list_secrets(path="app", mount_point="kv1")["data"]["keys"]
kv1.delete_secret(path="app/cfg", mount_point="kv1")
out["kv1_after_delete"] = outcome(lambda: kv1.read_secret(path="app/cfg", mount_point="kv1"))
out["kv1_denied"] = outcome(lambda: kv1.create_or_update_secret(path="other", secret={"a": 1}, mount_point="kv1"))
print(json.dumps(out))
`;

describe.skipIf(!interpreter && !process.env.CI)('a real client: hvac on the key/value engine', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('writes, reads, versions, soft-deletes, undeletes, destroys and lists under a policy, and uses KV v1', async () => {
    if (!interpreter) throw new Error(`CI is set but ${missingReason}`);
    const run = await runPython(interpreter, SCRIPT, { VAULT_ADDR: server.baseUrl, VAULT_TOKEN: ROOT_TOKEN, POLICY });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(result).toEqual({
      secret_mount: { version: '2' },
      v1_write: 1,
      v2_write: 2,
      cas_mismatch: `invalid: check-and-set parameter did not match the current version, on post ${server.baseUrl}/v1/secret/data/app/db`,
      latest: {
        data: { user: 'svc2' },
        metadata: { version: 2, created_time: expect.any(String), deletion_time: '', destroyed: false, custom_metadata: null },
      },
      first: { user: 'svc', port: 5432 },
      patched: { user: 'svc2', extra: true },
      listed: ['admin', 'db', 'other'],
      after_soft_delete: 'not found',
      undeleted: 3,
      destroyed_read: 'not found',
      metadata: {
        max_versions: 5,
        current_version: 3,
        versions: {
          '1': { destroyed: true, deleted: false },
          '2': { destroyed: false, deleted: true },
          '3': { destroyed: false, deleted: false },
        },
      },
      denied_admin: 'forbidden',
      denied_elsewhere: 'forbidden',
      denied_config: 'forbidden',
      denied_root_list: 'forbidden',
      after_metadata_delete: 'not found',
      config: { max_versions: 7, cas_required: false, delete_version_after: '1h0m0s' },
      kv1_read: { url: 'https://example', retries: 3 },
      kv1_list: ['cfg'],
      kv1_after_delete: 'not found',
      kv1_denied: 'forbidden',
    });
  });
});
