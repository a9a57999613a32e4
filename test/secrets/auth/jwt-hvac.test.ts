import { createPrivateKey, createPublicKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSigningKeys } from '../../../src/platform/admin-settings/repo.js';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { hvacInterpreter as interpreter, missingHvacReason as missingReason, runPython } from '../../helpers/python.js';
import { signJwt } from './jwt-helpers.js';

/** hvac's JWT auth calls against a role that verifies understudy's own workload identity tokens. */
if (!interpreter && !process.env.CI) console.warn(`skipping the hvac JWT test: ${missingReason}`);

const SCRIPT = `
import json, os, hvac

url = os.environ["VAULT_ADDR"]
root = hvac.Client(url=url, token=os.environ["VAULT_TOKEN"])
root.sys.create_or_update_policy(name="runs", policy='path "auth/token/create" { capabilities = ["update"] }')
root.sys.enable_auth_method(method_type="jwt")
configured = root.auth.jwt.configure(oidc_discovery_url=url, bound_issuer=url)
config = root.auth.jwt.read_config()["data"]
created = root.auth.jwt.create_role(
    name="tfc-run",
    role_type="jwt",
    user_claim="terraform_full_workspace",
    allowed_redirect_uris=[],
    bound_audiences=["vault.workload.identity"],
    bound_claims_type="glob",
    bound_claims={"sub": "organization:acme:project:*:workspace:web:run_phase:*"},
    claim_mappings={"terraform_workspace_name": "workspace"},
    token_policies=["runs"],
    token_ttl="20m",
)
role = root.auth.jwt.read_role(name="tfc-run")["data"]
roles = root.auth.jwt.list_roles()["data"]["keys"]

run = hvac.Client(url=url)
login = run.auth.jwt.jwt_login(role="tfc-run", jwt=os.environ["RUN_JWT"])
me = run.auth.token.lookup_self()["data"]
child = run.auth.token.create(display_name="terraform", ttl="1200s", explicit_max_ttl="1200s", renewable=False)["auth"]
seal = run.sys.read_seal_status()
renewed = run.auth.token.renew_self()["auth"]
bad = None
try:
    hvac.Client(url=url).auth.jwt.jwt_login(role="tfc-run", jwt=os.environ["RUN_JWT"] + "x")
except hvac.exceptions.InvalidRequest as error:
    bad = str(error)
deleted = root.auth.jwt.delete_role(name="tfc-run")

print(json.dumps({
    "configured": configured.status_code,
    "config": config,
    "created": created.status_code,
    "role": role,
    "roles": roles,
    "login": login["auth"],
    "me": {key: me[key] for key in ("path", "meta", "policies", "renewable", "ttl", "orphan")},
    "child": {key: child[key] for key in ("renewable", "lease_duration", "policies")},
    "version": seal["version"],
    "renewed": renewed["lease_duration"],
    "bad": bad,
    "deleted": deleted.status_code,
}))
`;

describe.skipIf(!interpreter && !process.env.CI)('a real client: hvac with the JWT auth method', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('configures, creates and reads a role, and logs in with a token signed by the platform key', async () => {
    if (!interpreter) throw new Error(`CI is set but ${missingReason}`);
    // The published key set is made on first request; the test signs with its current key itself.
    await fetch(`${server.baseUrl}/.well-known/jwks`);
    const row = listSigningKeys(server.app.runtime.store.db).find((key) => key.current);
    if (!row) throw new Error('no signing key');
    const privateKey = createPrivateKey(row.privateKeyPem);
    const now = Math.floor(server.app.runtime.clock.nowMs() / 1000);
    const jwt = signJwt(
      { kid: row.kid, alg: 'RS256', privateKey, publicKey: createPublicKey(privateKey) },
      {
        iss: server.baseUrl,
        aud: 'vault.workload.identity',
        sub: 'organization:acme:project:Default Project:workspace:web:run_phase:apply',
        iat: now,
        nbf: now,
        exp: now + 600,
        terraform_full_workspace: 'organization:acme:project:Default Project:workspace:web',
        terraform_workspace_name: 'web',
      },
    );
    const run = await runPython(interpreter, SCRIPT, { VAULT_ADDR: server.baseUrl, VAULT_TOKEN: ROOT_TOKEN, RUN_JWT: jwt });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.configured).toBe(204);
    expect(result.config).toMatchObject({ oidc_discovery_url: server.baseUrl, bound_issuer: server.baseUrl, namespace_in_state: true });
    expect(result.created).toBe(204);
    expect(result.role).toMatchObject({
      role_type: 'jwt',
      user_claim: 'terraform_full_workspace',
      bound_claims_type: 'glob',
      token_policies: ['runs'],
      token_ttl: 1200,
      verbose_oidc_logging: false,
    });
    expect(result.roles).toEqual(['tfc-run']);
    expect(result.login).toMatchObject({
      policies: ['default', 'runs'],
      metadata: { role: 'tfc-run', workspace: 'web' },
      lease_duration: 1200,
      renewable: true,
    });
    expect(result.me).toMatchObject({ path: 'auth/jwt/login', meta: { role: 'tfc-run', workspace: 'web' }, renewable: true, orphan: true });
    expect(result.me.ttl).toBeGreaterThan(1100);
    expect(result.child).toEqual({ renewable: false, lease_duration: 1200, policies: ['default', 'runs'] });
    expect(result.version).not.toBe('');
    expect(result.renewed).toBe(1200);
    expect(result.bad).toContain('error validating token: error verifying token signature: failed to verify id token signature');
    expect(result.deleted).toBe(204);
  });
});
