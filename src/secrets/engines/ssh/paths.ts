import { createHash, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { badRequest, notFound } from '../../../core/errors.js';
import type { Clock } from '../../../core/clock.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import type { CaKeys } from './ca.js';
import { issueCertificate } from './issue.js';
import { generateSshKey, KeyRequestError, privateKeyPem } from './private-keys.js';
import { ROLE_FIELDS, roleFromFields, roleView, type SshRole } from './role.js';
import { parseAuthorizedKey, publicKeyOf, WireError } from './wire.js';

const roleKey = (name: string) => `roles/${name}`;
const otpKey = (otp: string) => `otp/${createHash('sha256').update(otp).digest('hex')}`;

const CERT_FIELDS: Record<string, FieldSpec> = {
  ttl: { type: 'duration', description: 'Requested certificate lifetime (at most the role max_ttl).', default: 0 },
  valid_principals: { type: 'string', description: 'Comma-separated users or hosts the certificate is valid for.', default: '' },
  cert_type: { type: 'string', description: '`user` or `host`.', default: 'user' },
  key_id: { type: 'string', description: 'The key ID (when the role allows it).', default: '' },
  critical_options: { type: 'kvPairs', description: 'Critical options.', default: {} },
  extensions: { type: 'kvPairs', description: 'Extensions.', default: {} },
};

function caRole(request: HandlerRequest): SshRole {
  const name = request.params.role ?? '';
  const role = request.storage.get<SshRole>(roleKey(name));
  if (!role) throw badRequest(`Unknown role: ${name}`);
  if (role.key_type !== 'ca') throw badRequest(`role "${name}" is not of type "ca"`);
  return role;
}

function signerOf(request: HandlerRequest, keys: CaKeys) {
  const ca = keys.signer(request.storage);
  if (!ca) throw badRequest("failed to read CA private key: keys haven't been configured yet");
  return ca;
}

function sign(request: HandlerRequest, keys: CaKeys, clock: Clock): LogicalResponse {
  const role = caRole(request);
  const text = request.fields.get<string>('public_key');
  if (text === '') throw badRequest('missing public_key');
  let key;
  try {
    key = parseAuthorizedKey(text);
  } catch (error) {
    if (!(error instanceof WireError)) throw error;
    throw badRequest(`failed to parse public_key as SSH key: ${error.message}`);
  }
  return { data: issueCertificate(request, role, signerOf(request, keys), key, clock.now()) };
}

async function issue(request: HandlerRequest, keys: CaKeys, clock: Clock): Promise<LogicalResponse> {
  const role = caRole(request);
  const ca = signerOf(request, keys);
  const keyType = request.fields.get<string>('key_type');
  let privateKey;
  try {
    privateKey = await generateSshKey(keyType, request.fields.get<number>('key_bits'));
  } catch (error) {
    if (error instanceof KeyRequestError) throw badRequest(error.message);
    throw error;
  }
  const data = issueCertificate(request, role, ca, publicKeyOf(privateKey), clock.now());
  const family = privateKey.asymmetricKeyType === 'ec' ? 'ec' : privateKey.asymmetricKeyType === 'rsa' ? 'rsa' : 'ed25519';
  return { data: { ...data, private_key: privateKeyPem(privateKey), private_key_type: family } };
}

/** `creds/:role` for an OTP role: a one-time password the host's helper later checks at `verify`. */
function otpCredential(request: HandlerRequest): LogicalResponse {
  const name = request.params.role ?? '';
  const role = request.storage.get<SshRole>(roleKey(name));
  if (!role) throw badRequest(`Role '${name}' not found`);
  if (role.key_type !== 'otp') throw badRequest('Key type unknown');
  const ip = request.fields.get<string>('ip');
  if (ip === '') throw badRequest('Missing ip');
  if (isIP(ip) === 0) throw badRequest('Invalid IP');
  const username = request.fields.get<string>('username') || role.default_user;
  const allowed = role.allowed_users.split(',').map((item) => item.trim());
  if (username !== role.default_user && role.allowed_users !== '*' && !allowed.includes(username))
    throw badRequest(`Username '${username}' is not allowed`);
  const otp = randomUUID();
  request.storage.put(otpKey(otp), { username, ip, role_name: name });
  return { data: { key_type: 'otp', key: otp, username, ip, port: role.port } };
}

/** The echo the OTP helper sends to check it can reach the server. */
const VERIFY_ECHO = 'verify-echo-request';

function verify(request: HandlerRequest): LogicalResponse {
  const otp = request.fields.get<string>('otp');
  if (otp === VERIFY_ECHO) return { data: { message: 'verify-echo-response' } };
  const entry = request.storage.get<{ username: string; ip: string; role_name: string }>(otpKey(otp));
  if (!entry) throw badRequest('OTP not found');
  // One use: the password is gone once a host has accepted it.
  request.storage.delete(otpKey(otp));
  return { data: entry };
}

export function sshPaths(keys: CaKeys, clock: Clock): PathSpec[] {
  return [
    {
      pattern: 'roles',
      summary: 'List roles.',
      operations: {
        list: (request) => {
          const names = request.storage.list('roles/').filter((key) => !key.endsWith('/'));
          if (names.length === 0) throw notFound();
          const keyInfo = Object.fromEntries(
            names.map((name) => [name, { key_type: request.storage.get<SshRole>(roleKey(name))?.key_type }]),
          );
          return { data: { keys: names, key_info: keyInfo } };
        },
      },
    },
    {
      pattern: 'roles/:role',
      summary: 'Create, read and delete roles: what sign, issue and creds check a request against.',
      fields: ROLE_FIELDS,
      operations: {
        update: (request) => {
          request.storage.put(roleKey(request.params.role ?? ''), roleFromFields(request.fields));
          return undefined;
        },
        read: (request) => {
          const role = request.storage.get<SshRole>(roleKey(request.params.role ?? ''));
          if (!role) throw notFound();
          return { data: roleView(role) };
        },
        delete: (request) => {
          request.storage.delete(roleKey(request.params.role ?? ''));
          return undefined;
        },
      },
    },
    {
      pattern: 'sign/:role',
      summary: 'Sign a public key into an OpenSSH certificate under a role.',
      fields: { public_key: { type: 'string', description: 'The SSH public key to sign.', default: '' }, ...CERT_FIELDS },
      operations: { update: (request) => sign(request, keys, clock) },
    },
    {
      pattern: 'issue/:role',
      summary: 'Generate a key pair and sign its public key under a role.',
      fields: {
        key_type: { type: 'string', description: 'rsa, ec or ed25519.', default: 'rsa' },
        key_bits: { type: 'int', description: 'RSA modulus size or EC curve size.', default: 0 },
        ...CERT_FIELDS,
      },
      operations: { update: (request) => issue(request, keys, clock) },
    },
    {
      pattern: 'creds/:role',
      summary: 'A one-time password for an OTP role.',
      fields: {
        ip: { type: 'string', description: 'The host the password is for.', default: '' },
        username: { type: 'string', description: 'The user (defaults to the role default_user).', default: '' },
      },
      operations: { update: otpCredential },
    },
    {
      pattern: 'verify',
      summary: 'Check (and use up) a one-time password.',
      fields: { otp: { type: 'string', description: 'The one-time password.', default: '' } },
      unauthenticated: ['update'],
      operations: { update: verify },
    },
  ];
}
