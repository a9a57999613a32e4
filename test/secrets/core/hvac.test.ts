import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { hvacInterpreter as interpreter, missingHvacReason as missingReason, runPython } from '../../helpers/python.js';

/**
 * Drives the secrets API with a real client: hvac (Debian's python3-hvac). Without hvac the test
 * is skipped with a reason locally; under CI (which installs it) it fails.
 */
if (!interpreter && !process.env.CI) console.warn(`skipping the hvac test: ${missingReason}`);

const SCRIPT = `
import json, os, hvac

root = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"])
assert root.is_authenticated()

root.sys.create_or_update_policy(name="app", policy='path "cubbyhole/*" { capabilities = ["create", "read", "update", "list"] }')
rules = root.sys.read_policy(name="app")["data"]["rules"]

created = root.auth.token.create(policies=["app"], ttl="1h", display_name="hvac")
token = created["auth"]["client_token"]

app = hvac.Client(url=os.environ["VAULT_ADDR"], token=token)
app.write("cubbyhole/hvac/config", username="svc", password="s3cret")
read = app.read("cubbyhole/hvac/config")["data"]
listed = app.list("cubbyhole/hvac")["data"]["keys"]
me = app.auth.token.lookup_self()["data"]
other = root.read("cubbyhole/hvac/config")

denied = None
try:
    app.sys.list_mounted_secrets_engines()
except hvac.exceptions.Forbidden as error:
    denied = str(error)

print(json.dumps({
    "rules": rules,
    "policies": created["auth"]["policies"],
    "read": read,
    "listed": listed,
    "me": {"policies": me["policies"], "display_name": me["display_name"], "ttl": me["ttl"], "id_matches": me["id"] == token},
    "root_sees": other,
    "denied": denied,
}))
`;

describe.skipIf(!interpreter && !process.env.CI)('a real client: hvac', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('creates a policy and a token, writes and reads a cubbyhole secret, and looks itself up', async () => {
    if (!interpreter) throw new Error(`CI is set but ${missingReason}`);
    // Asynchronous: the server answering hvac runs in this very process.
    const run = await runPython(interpreter, SCRIPT, { VAULT_ADDR: server.baseUrl, VAULT_TOKEN: ROOT_TOKEN });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({
      rules: 'path "cubbyhole/*" { capabilities = ["create", "read", "update", "list"] }',
      policies: ['app', 'default'],
      read: { username: 'svc', password: 's3cret' },
      listed: ['config'],
      me: { policies: ['app', 'default'], display_name: 'token-hvac', id_matches: true },
      root_sees: null,
    });
    expect(result.denied).toContain('permission denied');
  });
});
