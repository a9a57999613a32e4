import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { hvacInterpreter as interpreter, missingHvacReason as missingReason, runPython } from '../../helpers/python.js';

/** Logins linked to entities, identity policies evaluated per request, and templated policies, through hvac. */
if (!interpreter && !process.env.CI) console.warn(`skipping the hvac identity-logins test: ${missingReason}`);

const SCRIPT = `
import json, os, hvac

url = os.environ["VAULT_ADDR"]
root = hvac.Client(url=url, token=os.environ["VAULT_TOKEN"])
identity = root.secrets.identity
root.sys.enable_secrets_engine(backend_type="kv", path="kv", options={"version": "2"})
root.sys.enable_auth_method(method_type="userpass")
root.sys.enable_auth_method(method_type="approle")
methods = root.sys.list_auth_methods()["data"]
userpass = methods["userpass/"]["accessor"]
token_accessor = methods["token/"]["accessor"]

def denied(call):
    try:
        call()
    except hvac.exceptions.Forbidden:
        return True
    return False

root.sys.create_or_update_policy(name="team-read", policy='path "kv/data/team/*" { capabilities = ["read"] }')
root.sys.create_or_update_policy(name="own", policy='''
path "kv/data/users/{{identity.entity.name}}/*" { capabilities = ["create", "update", "read"] }
path "kv/data/by-alias/{{identity.entity.aliases.''' + userpass + '''.name}}" { capabilities = ["read"] }
path "kv/data/by-meta/{{identity.entity.metadata.team}}" { capabilities = ["read"] }
path "kv/data/by-group/{{identity.groups.names.devs.id}}" { capabilities = ["read"] }
path "kv/data/never/{{identity.entity.metadata.missing}}" { capabilities = ["read"] }
''')
root.secrets.kv.v2.create_or_update_secret(path="team/plan", secret={"v": "1"}, mount_point="kv")
for path in ["by-alias/ana", "by-meta/core", "never/", "users/other/x"]:
    root.secrets.kv.v2.create_or_update_secret(path=path, secret={"v": path}, mount_point="kv")

root.auth.userpass.create_or_update_user(username="ana", password="pw", policies=["own"])
ana = hvac.Client(url=url)
login = ana.auth.userpass.login(username="ana", password="pw")["auth"]
entity_id = login["entity_id"]
entity = identity.read_entity(entity_id=entity_id)["data"]
me = ana.auth.token.lookup_self()["data"]
again = hvac.Client(url=url).auth.userpass.login(username="ana", password="pw")["auth"]["entity_id"]

identity.update_entity(entity_id=entity_id, name="ana-person", metadata={"team": "core"})
group = identity.create_or_update_group(name="devs", member_entity_ids=[entity_id])["data"]
root.secrets.kv.v2.create_or_update_secret(path="by-group/" + group["id"], secret={"v": "g"}, mount_point="kv")

results = {}
def write(path):
    return lambda: ana.secrets.kv.v2.create_or_update_secret(path=path, secret={"a": "b"}, mount_point="kv")
results["own_write"] = not denied(write("users/ana-person/note"))
results["other_write"] = denied(write("users/other/x"))
results["by_alias"] = not denied(lambda: ana.secrets.kv.v2.read_secret_version(path="by-alias/ana", mount_point="kv"))
results["by_meta"] = not denied(lambda: ana.secrets.kv.v2.read_secret_version(path="by-meta/core", mount_point="kv"))
results["by_group"] = not denied(lambda: ana.secrets.kv.v2.read_secret_version(path="by-group/" + group["id"], mount_point="kv"))
results["never"] = denied(lambda: ana.secrets.kv.v2.read_secret_version(path="never/", mount_point="kv"))

results["team_before"] = denied(lambda: ana.secrets.kv.v2.read_secret_version(path="team/plan", mount_point="kv"))
parent = identity.create_or_update_group(name="org", policies=["team-read"], member_group_ids=[group["id"]])["data"]
results["team_inherited"] = not denied(lambda: ana.secrets.kv.v2.read_secret_version(path="team/plan", mount_point="kv"))
results["identity_policies"] = ana.auth.token.lookup_self()["data"].get("identity_policies")
identity.update_group(group_id=parent["id"], name="org", policies=[])
results["team_after"] = denied(lambda: ana.secrets.kv.v2.read_secret_version(path="team/plan", mount_point="kv"))

identity.update_entity(entity_id=entity_id, disabled=True)
results["disabled_use"] = denied(lambda: ana.secrets.kv.v2.read_secret_version(path="by-alias/ana", mount_point="kv"))
try:
    hvac.Client(url=url).auth.userpass.login(username="ana", password="pw")
    results["disabled_login"] = None
except hvac.exceptions.Forbidden as error:
    results["disabled_login"] = str(error)
identity.update_entity(entity_id=entity_id, disabled=False)

root.sys.create_or_update_policy(name="maker", policy='path "auth/token/create" { capabilities = ["update"] }')
root.auth.approle.create_or_update_approle(role_name="svc", token_policies=["maker"])
role_id = root.auth.approle.read_role_id(role_name="svc")["data"]["role_id"]
secret_id = root.auth.approle.generate_secret_id(role_name="svc")["data"]["secret_id"]
machine = hvac.Client(url=url)
approle = machine.auth.approle.login(role_id=role_id, secret_id=secret_id)["auth"]
machine_entity = identity.lookup_entity(alias_name=role_id, alias_mount_accessor=methods["approle/"]["accessor"])["data"]
child = machine.auth.token.create(policies=["default"])["auth"]

root.write("auth/token/roles/bots", allowed_entity_aliases=["bot-*"], orphan=True)
bot = root.write("auth/token/create/bots", entity_alias="bot-1")["auth"]
bot_entity = identity.lookup_entity(alias_name="bot-1", alias_mount_accessor=token_accessor)["data"]

print(json.dumps({
    "login": login, "entity": entity, "me": {"entity_id": me["entity_id"]}, "again": again, "results": results,
    "approle": approle, "machine_entity": machine_entity, "child": child, "bot": bot, "bot_entity": bot_entity,
    "userpass": userpass, "group": group,
}))
`;

describe.skipIf(!interpreter && !process.env.CI)('a real client: hvac logins linked to the identity store', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('links logins to entities, joins group policies per request, renders templated policies, refuses disabled entities', async () => {
    if (!interpreter) throw new Error(`CI is set but ${missingReason}`);
    const run = await runPython(interpreter, SCRIPT, { VAULT_ADDR: server.baseUrl, VAULT_TOKEN: ROOT_TOKEN });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const r = JSON.parse(run.stdout);
    expect(r.login.entity_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.entity.name).toMatch(/^entity_[0-9a-f]{8}$/);
    expect(r.entity.aliases).toEqual([
      expect.objectContaining({ name: 'ana', mount_accessor: r.userpass, mount_path: 'auth/userpass/', mount_type: 'userpass' }),
    ]);
    expect(r.me.entity_id).toBe(r.login.entity_id);
    expect(r.again).toBe(r.login.entity_id);
    expect(r.results).toEqual({
      own_write: true,
      other_write: true,
      by_alias: true,
      by_meta: true,
      by_group: true,
      never: true,
      team_before: true,
      team_inherited: true,
      identity_policies: ['team-read'],
      team_after: true,
      disabled_use: true,
      disabled_login: expect.stringContaining('permission denied'),
    });
    expect(r.approle.entity_id).toBe(r.machine_entity.id);
    expect(r.machine_entity.aliases[0].metadata).toEqual({ role_name: 'svc' });
    expect(r.child.entity_id).toBe(r.approle.entity_id);
    expect(r.bot.entity_id).toBe(r.bot_entity.id);
  });
});
