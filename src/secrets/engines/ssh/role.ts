import { badRequest } from '../../../core/errors.js';
import type { FieldData } from '../../framework/fields.js';
import type { FieldSpec } from '../../framework/types.js';

/** A role as stored and read back, with the real service's field names. */
export interface SshRole {
  key_type: 'ca' | 'otp';
  default_user: string;
  allowed_users: string;
  allowed_domains: string;
  key_id_format: string;
  ttl: number;
  max_ttl: number;
  allowed_critical_options: string;
  allowed_extensions: string;
  default_critical_options: Record<string, string>;
  default_extensions: Record<string, string>;
  allow_user_certificates: boolean;
  allow_host_certificates: boolean;
  allow_bare_domains: boolean;
  allow_subdomains: boolean;
  allow_user_key_ids: boolean;
  allow_empty_principals: boolean;
  algorithm_signer: string;
  not_before_duration: number;
  cidr_list: string;
  exclude_cidr_list: string;
  port: number;
}

const text = (description: string): FieldSpec => ({ type: 'string', description, default: '' });
const flag = (description: string, value = false): FieldSpec => ({ type: 'bool', description, default: value });

export const ROLE_FIELDS: Record<string, FieldSpec> = {
  key_type: { type: 'string', description: "The role's kind: `ca` (certificates) or `otp` (one-time passwords).", required: true },
  default_user: text('The principal used when a request names none.'),
  allowed_users: text('Comma-separated principals a user certificate may name; `*` allows any.'),
  allowed_domains: text('Comma-separated domains a host certificate may name.'),
  key_id_format: text('Template of the key ID: {{role_name}}, {{token_display_name}}, {{public_key_hash}}.'),
  ttl: { type: 'duration', description: 'Default certificate lifetime.', default: 0 },
  max_ttl: { type: 'duration', description: 'Longest certificate lifetime.', default: 0 },
  allowed_critical_options: text('Comma-separated critical options a request may set; empty allows any.'),
  allowed_extensions: text('Comma-separated extensions a request may set; `*` allows any; empty allows none.'),
  default_critical_options: { type: 'kvPairs', description: 'Critical options used when a request sets none.', default: {} },
  default_extensions: { type: 'kvPairs', description: 'Extensions used when a request sets none.', default: {} },
  allow_user_certificates: flag('Sign user certificates.'),
  allow_host_certificates: flag('Sign host certificates.'),
  allow_bare_domains: flag('Host certificates may name an allowed domain itself.'),
  allow_subdomains: flag('Host certificates may name subdomains of allowed domains.'),
  allow_user_key_ids: flag('Requests may set the key ID.'),
  allow_empty_principals: flag('Sign certificates valid for any principal.'),
  algorithm_signer: {
    type: 'string',
    description: 'RSA CA signature algorithm: default, rsa-sha2-256, rsa-sha2-512, ssh-rsa.',
    default: 'default',
  },
  not_before_duration: { type: 'duration', description: 'How far before now certificates become valid.', default: 30 },
  cidr_list: text('OTP roles: comma-separated CIDR blocks the role serves.'),
  exclude_cidr_list: text('OTP roles: CIDR blocks excluded from cidr_list.'),
  port: { type: 'int', description: 'OTP roles: the SSH port.', default: 22 },
};

const ALGORITHMS = new Set(['', 'default', 'rsa-sha2-256', 'rsa-sha2-512', 'ssh-rsa']);

/** The role a write describes, checked as the real service checks it. */
export function roleFromFields(fields: FieldData): SshRole {
  const keyType = fields.get<string>('key_type')?.toLowerCase() ?? '';
  if (keyType === '') throw badRequest('missing key type');
  if (keyType !== 'ca' && keyType !== 'otp') throw badRequest('invalid key type');
  const role: SshRole = {
    key_type: keyType,
    default_user: fields.get<string>('default_user'),
    allowed_users: fields.get<string>('allowed_users'),
    allowed_domains: fields.get<string>('allowed_domains'),
    key_id_format: fields.get<string>('key_id_format'),
    ttl: fields.get<number>('ttl'),
    max_ttl: fields.get<number>('max_ttl'),
    allowed_critical_options: fields.get<string>('allowed_critical_options'),
    allowed_extensions: fields.get<string>('allowed_extensions'),
    default_critical_options: fields.get<Record<string, string>>('default_critical_options'),
    default_extensions: fields.get<Record<string, string>>('default_extensions'),
    allow_user_certificates: fields.get<boolean>('allow_user_certificates'),
    allow_host_certificates: fields.get<boolean>('allow_host_certificates'),
    allow_bare_domains: fields.get<boolean>('allow_bare_domains'),
    allow_subdomains: fields.get<boolean>('allow_subdomains'),
    allow_user_key_ids: fields.get<boolean>('allow_user_key_ids'),
    allow_empty_principals: fields.get<boolean>('allow_empty_principals'),
    algorithm_signer: fields.get<string>('algorithm_signer') || 'default',
    not_before_duration: fields.get<number>('not_before_duration'),
    cidr_list: fields.get<string>('cidr_list'),
    exclude_cidr_list: fields.get<string>('exclude_cidr_list'),
    port: fields.get<number>('port'),
  };
  if (keyType === 'otp') {
    if (role.default_user === '') throw badRequest('missing default user');
    return role;
  }
  if (!role.allow_user_certificates && !role.allow_host_certificates)
    throw badRequest("Either 'allow_user_certificates' or 'allow_host_certificates' must be set to 'true'");
  if (!ALGORITHMS.has(role.algorithm_signer)) throw badRequest(`unknown algorithm signer "${role.algorithm_signer}"`);
  if (role.ttl !== 0 && role.max_ttl !== 0 && role.ttl > role.max_ttl) throw badRequest('ttl cannot be greater than max_ttl');
  return role;
}

/** What a role read shows: OTP roles carry only their own fields. */
export function roleView(role: SshRole): Record<string, unknown> {
  if (role.key_type === 'otp') {
    const { key_type, default_user, cidr_list, exclude_cidr_list, port, allowed_users } = role;
    return { key_type, default_user, cidr_list, exclude_cidr_list, port, allowed_users };
  }
  const { cidr_list: _cidr, exclude_cidr_list: _exclude, port: _port, ...view } = role;
  return view;
}
