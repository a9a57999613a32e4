import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { hvacInterpreter as interpreter, missingHvacReason as missingReason, runPython } from '../../helpers/python.js';

/**
 * hvac's identity-token calls, then the minted token logs in to a `jwt` auth mount of the same
 * server that discovers this provider over HTTP (`oidc_discovery_url`) and to one that reads its
 * key set (`jwks_url`); the signature is also checked here with node:crypto.
 */
if (!interpreter && !process.env.CI) console.warn(`skipping the hvac identity-token test: ${missingReason}`);

const SCRIPT = `
import json, os, hvac

url = os.environ["VAULT_ADDR"]
root = hvac.Client(url=url, token=os.environ["VAULT_TOKEN"])
identity = root.secrets.identity
root.sys.enable_auth_method(method_type="userpass")
root.sys.create_or_update_policy(name="minter", policy='path "identity/oidc/token/*" { capabilities = ["read"] }')
root.auth.userpass.create_or_update_user(username="ana", password="pw", policies=["minter"])
ana = hvac.Client(url=url)
login = ana.auth.userpass.login(username="ana", password="pw")["auth"]

created = identity.create_named_key(name="signer", rotation_period="12h", verification_ttl="6h", algorithm="ES256")
key = identity.read_named_key(name="signer")["data"]
identity.create_or_update_role(name="app", key="signer", template='{"nick": {{identity.entity.name}}}', ttl="15m")
role = identity.read_role(name="app")["data"]
identity.create_named_key(name="signer", rotation_period="12h", verification_ttl="6h", algorithm="ES256",
                          allowed_client_ids=[role["client_id"]])
keys = identity.list_named_keys()["data"]["keys"]
roles = identity.list_roles()["data"]["keys"]
minted = ana.secrets.identity.generate_signed_id_token(name="app")["data"]
introspected = identity.introspect_signed_id_token(token=minted["token"], client_id=role["client_id"])
wrong = identity.introspect_signed_id_token(token=minted["token"], client_id="someone-else")
discovery = identity.read_well_known_configurations()
jwks = identity.read_active_public_keys()
rotated = identity.rotate_named_key(name="signer", verification_ttl="1h")

issuer = url + "/v1/identity/oidc"
root.sys.enable_auth_method(method_type="jwt")
root.auth.jwt.configure(oidc_discovery_url=issuer, bound_issuer=issuer)
root.auth.jwt.create_role(name="app", role_type="jwt", user_claim="sub", allowed_redirect_uris=[],
                          bound_audiences=[role["client_id"]], claim_mappings={"nick": "nick"}, token_policies=["default"])
jwt_login = hvac.Client(url=url).auth.jwt.jwt_login(role="app", jwt=minted["token"])["auth"]
root.sys.enable_auth_method(method_type="jwt", path="jwks")
root.auth.jwt.configure(jwks_url=issuer + "/.well-known/keys", path="jwks")
root.auth.jwt.create_role(name="app", role_type="jwt", user_claim="sub", allowed_redirect_uris=[],
                          bound_audiences=[role["client_id"]], token_policies=["default"], path="jwks")
jwks_login = hvac.Client(url=url).auth.jwt.jwt_login(role="app", jwt=minted["token"], path="jwks")["auth"]

print(json.dumps({
    "login": login, "created": created.status_code, "key": key, "role": role, "keys": keys, "roles": roles,
    "minted": minted, "introspected": introspected, "wrong": wrong, "discovery": discovery, "jwks": jwks,
    "rotated": rotated.status_code, "jwt_login": jwt_login, "jwks_login": jwks_login,
}))
`;

describe.skipIf(!interpreter && !process.env.CI)('a real client: hvac and identity tokens', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('creates keys and roles, mints, introspects, publishes; the token logs in to the jwt method of the same server', async () => {
    if (!interpreter) throw new Error(`CI is set but ${missingReason}`);
    const run = await runPython(interpreter, SCRIPT, { VAULT_ADDR: server.baseUrl, VAULT_TOKEN: ROOT_TOKEN });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const r = JSON.parse(run.stdout);
    expect(r.created).toBe(204);
    expect(r.key).toEqual({ algorithm: 'ES256', allowed_client_ids: [], rotation_period: 43200, verification_ttl: 21600 });
    expect(r.role).toEqual({ client_id: expect.any(String), key: 'signer', template: '{"nick": {{identity.entity.name}}}', ttl: 900 });
    expect(r.keys).toEqual(expect.arrayContaining(['default', 'signer']));
    expect(r.roles).toEqual(['app']);
    expect(r.minted).toEqual({ token: expect.any(String), client_id: r.role.client_id, ttl: 900 });
    expect(r.introspected).toEqual({ active: true });
    expect(r.wrong).toEqual({ active: false, error: expect.stringContaining('invalid audience claim (aud)') });
    const issuer = `${server.baseUrl}/v1/identity/oidc`;
    expect(r.discovery).toMatchObject({ issuer, jwks_uri: `${issuer}/.well-known/keys` });
    expect(r.rotated).toBe(204);

    // Independently: the ES256 signature checks out with the published key the header names.
    const [header, payload, signature] = (r.minted.token as string).split('.') as [string, string, string];
    const { kid, alg } = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { kid: string; alg: string };
    expect(alg).toBe('ES256');
    const jwk = (r.jwks.keys as (JsonWebKey & { kid: string })[]).find((candidate) => candidate.kid === kid);
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'sig', alg: 'ES256' });
    const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    const signed = Buffer.from(`${header}.${payload}`);
    expect(verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'))).toBe(true);
    expect(
      verify('sha256', Buffer.from(`${header}.${payload}x`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')),
    ).toBe(false);

    expect(r.jwt_login.metadata).toEqual({ role: 'app', nick: expect.stringMatching(/^entity_/) });
    expect(r.jwt_login.policies).toEqual(['default']);
    expect(r.jwks_login.client_token).toEqual(expect.any(String));
  });
});
