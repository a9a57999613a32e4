import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';

/**
 * A small fuzz of the identity, SSH, quota and certificate-auth routes: raw bodies that are no JSON
 * object and objects whose known fields carry values of every wrong type. Each answer is a 2xx or
 * a 4xx with the `{"errors": [...]}` body, never a 5xx; the server keeps answering throughout.
 */
let server: TestServer;

const ROUTES: Record<string, string[]> = {
  'identity/entity': ['name', 'metadata', 'policies', 'disabled', 'id'],
  'identity/entity-alias': ['name', 'canonical_id', 'mount_accessor', 'custom_metadata'],
  'identity/group': ['name', 'type', 'member_entity_ids', 'member_group_ids', 'policies', 'metadata'],
  'identity/group-alias': ['name', 'mount_accessor', 'canonical_id'],
  'identity/entity/merge': ['from_entity_ids', 'to_entity_id', 'force', 'conflicting_alias_ids_to_keep'],
  'identity/lookup/entity': ['id', 'name', 'alias_id', 'alias_name', 'alias_mount_accessor'],
  'identity/oidc/key/fuzz': ['algorithm', 'rotation_period', 'verification_ttl', 'allowed_client_ids'],
  'identity/oidc/role/fuzz': ['key', 'template', 'ttl', 'client_id'],
  'identity/oidc/introspect': ['token', 'client_id'],
  // Not key_type on the key-making routes: a null one means RSA 4096, seconds a request here.
  'ssh/config/ca': ['generate_signing_key', 'key_bits', 'private_key', 'public_key'],
  'ssh/roles/fuzz': ['key_type', 'allowed_users', 'default_extensions', 'ttl', 'max_ttl', 'allowed_domains', 'key_id_format'],
  'ssh/sign/dev': ['public_key', 'valid_principals', 'cert_type', 'ttl', 'extensions', 'critical_options', 'key_id'],
  'ssh/issue/dev': ['key_bits', 'valid_principals', 'ttl'],
  'ssh/verify': ['otp'],
  'sys/quotas/config': ['rate_limit_exempt_paths', 'enable_rate_limit_audit_logging', 'enable_rate_limit_response_headers'],
  'sys/quotas/rate-limit/fuzz': ['rate', 'path', 'role', 'interval', 'block_interval', 'inheritable'],
  'auth/cert/certs/fuzz': ['certificate', 'allowed_common_names', 'allowed_organizational_units', 'required_extensions', 'token_ttl'],
  'auth/cert/config': ['disable_binding', 'enable_identity_alias_metadata'],
  'auth/cert/login': ['name'],
};

/** Fields sent beside the odd one, so routes that make keys make cheap ones (RSA 4096 is their default). */
const BESIDE: Record<string, Record<string, unknown>> = {
  'ssh/config/ca': { key_type: 'ed25519' },
  'ssh/issue/dev': { key_type: 'ed25519' },
};

const RAW_BODIES = ['', 'null', '[]', '"text"', '42', '{', '{"a":', '\u0000', '{"a":1}{"b":2}'];
const ODD_VALUES: unknown[] = [
  null,
  [],
  {},
  -1,
  1e308,
  0.5,
  true,
  'x'.repeat(5000),
  '\u0000\uffff',
  '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
  [[1], { a: [] }],
  { a: { b: { c: 1 } } },
  '*',
  '../../sys',
];

async function send(path: string, body: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server.baseUrl}/v1/${path}`, {
    method: 'POST',
    headers: { 'x-vault-token': ROOT_TOKEN, 'content-type': 'application/json' },
    body,
  });
  return { status: response.status, text: await response.text() };
}

beforeAll(async () => {
  server = await startServer();
  const setup: [string, unknown][] = [
    ['sys/mounts/ssh', { type: 'ssh' }],
    ['ssh/config/ca', { key_type: 'ed25519' }],
    ['ssh/roles/dev', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', default_user: 'dev' }],
    ['sys/auth/cert', { type: 'cert' }],
  ];
  for (const [path, body] of setup) expect((await send(path, JSON.stringify(body))).status).toBeLessThan(300);
});
afterAll(() => server.close());

describe('odd bodies on identity, ssh, quota and cert routes', () => {
  it('never answer with a 5xx', async () => {
    const failures: string[] = [];
    for (const [path, fields] of Object.entries(ROUTES)) {
      // Raw bodies that read as empty would make default (RSA 4096) keys on the key-making routes.
      const bodies = [
        ...(BESIDE[path] ? [] : RAW_BODIES),
        ...fields.flatMap((field) => ODD_VALUES.map((value) => JSON.stringify({ ...BESIDE[path], [field]: value }))),
      ];
      for (const body of bodies) {
        const { status, text } = await send(path, body);
        if (status >= 500) failures.push(`${status} ${path} ${body.slice(0, 80)}: ${text.slice(0, 200)}`);
        else if (status >= 400) expect(JSON.parse(text), `${path} ${body.slice(0, 80)}`).toHaveProperty('errors');
      }
    }
    expect(failures).toEqual([]);
    expect((await fetch(`${server.baseUrl}/v1/sys/health`)).status).toBe(200);
  }, 180_000);
});
