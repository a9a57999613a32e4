import { createHash } from 'node:crypto';
import { badRequest } from '../../../core/errors.js';
import { effectiveTtls } from '../../leases/ttl.js';
import type { HandlerRequest } from '../../framework/types.js';
import { HOST_CERT, newSerial, signCertificate, USER_CERT } from './certificate.js';
import type { SshCa } from './ca.js';
import type { SshRole } from './role.js';
import type { SshPublicKey } from './wire.js';

const list = (text: string) => [
  ...new Set(
    text
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  ),
];

function certType(request: HandlerRequest, role: SshRole): typeof USER_CERT | typeof HOST_CERT {
  const requested = request.fields.get<string>('cert_type');
  if (requested === 'user') {
    if (!role.allow_user_certificates) throw badRequest("cert_type 'user' is not allowed by role");
    return USER_CERT;
  }
  if (requested === 'host') {
    if (!role.allow_host_certificates) throw badRequest("cert_type 'host' is not allowed by role");
    return HOST_CERT;
  }
  throw badRequest("cert_type must be either 'user' or 'host'");
}

function keyId(request: HandlerRequest, role: SshRole, key: SshPublicKey): string {
  const requested = request.fields.get<string>('key_id');
  if (requested !== '') {
    if (!role.allow_user_key_ids) throw badRequest('setting key_id is not allowed by role');
    return requested;
  }
  const displayName = request.token?.displayName ?? '';
  const format =
    role.key_id_format || (displayName === '' ? 'vault-{{public_key_hash}}' : 'vault-{{token_display_name}}-{{public_key_hash}}');
  const values: Record<string, string> = {
    token_display_name: displayName,
    role_name: request.params.role ?? '',
    public_key_hash: createHash('sha256').update(key.blob).digest('hex'),
  };
  return format.replace(/\{\{(token_display_name|role_name|public_key_hash)\}\}/g, (_match, name: string) => values[name] ?? '');
}

function hostAllowed(role: SshRole, allowed: string[], principal: string): boolean {
  return allowed.some(
    (domain) => (domain === principal && role.allow_bare_domains) || (role.allow_subdomains && principal.endsWith(`.${domain}`)),
  );
}

function principals(request: HandlerRequest, role: SshRole, type: number): string[] {
  const host = type === HOST_CERT;
  const fallback = host ? '' : role.default_user;
  const allowedText = host ? role.allowed_domains : role.allowed_users;
  let requested = list(request.fields.has('valid_principals') ? request.fields.get<string>('valid_principals') : fallback);
  if (requested.length === 0 && fallback !== '') requested = [fallback];
  const allowed = list(allowedText);
  if (requested.length === 0) {
    if (role.allow_empty_principals) return [];
    throw badRequest('empty valid principals not allowed by role');
  }
  if (allowed.length === 0) throw badRequest('role is not configured to allow any principals');
  if (allowedText === '*') return requested;
  for (const principal of requested) {
    const ok = host ? hostAllowed(role, allowed, principal) : allowed.includes(principal);
    if (!ok) throw badRequest(`${principal} is not a valid value for valid_principals`);
  }
  return requested;
}

function ttl(request: HandlerRequest, role: SshRole): number {
  const mount = effectiveTtls(request.mount.config);
  const specified = request.fields.has('ttl');
  let seconds = specified ? request.fields.get<number>('ttl') : role.ttl;
  if (seconds === 0) seconds = mount.defaultTtl;
  const max = role.max_ttl || mount.maxTtl;
  if (seconds > max) {
    if (!specified) return max;
    throw badRequest(`ttl is larger than maximum allowed ${max}`);
  }
  return seconds;
}

/** Go's `%v` of a string slice, as the real errors print the refused names. */
const goList = (names: string[]) => `[${names.join(' ')}]`;

function options(
  request: HandlerRequest,
  field: string,
  defaults: Record<string, string>,
  allowedText: string,
  kind: 'critical' | 'extension',
) {
  const requested = request.fields.get<Record<string, string>>(field);
  if (Object.keys(requested).length === 0) return defaults;
  if (kind === 'extension' && allowedText === '*') return requested;
  // An empty allow-list refuses every requested extension but allows any critical option.
  if (kind === 'critical' && allowedText === '') return requested;
  const allowed = allowedText.split(',');
  const refused = Object.keys(requested).filter((name) => !allowed.includes(name));
  if (refused.length > 0)
    throw badRequest(
      kind === 'critical'
        ? `critical options not on allowed list: ${goList(refused)}`
        : `extensions ${goList(refused)} are not on allowed list`,
    );
  return requested;
}

/** Checks the request against the role and signs: the `sign/` and `issue/` answer's data. */
export function issueCertificate(request: HandlerRequest, role: SshRole, ca: SshCa, key: SshPublicKey, now: Date) {
  const id = keyId(request, role, key);
  const type = certType(request, role);
  const names = principals(request, role, type);
  const lifetime = ttl(request, role);
  const criticalOptions = options(request, 'critical_options', role.default_critical_options, role.allowed_critical_options, 'critical');
  const extensions = options(request, 'extensions', role.default_extensions, role.allowed_extensions, 'extension');
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const serial = newSerial();
  const signedKey = signCertificate(ca.key, ca.publicKey, {
    key,
    serial,
    certType: type,
    keyId: id,
    principals: names,
    validAfter: nowSeconds - role.not_before_duration,
    validBefore: nowSeconds + lifetime,
    criticalOptions,
    extensions,
    algorithm: role.algorithm_signer,
  });
  return { serial_number: serial.toString(16), signed_key: signedKey };
}
