import { badRequest } from '../../../core/errors.js';
import type { FieldData } from '../../framework/fields.js';
import type { FieldSpec } from '../../framework/types.js';
import { resolveKeySpec } from './keys.js';

/** A role as stored and as read back (the real service's field names; TTLs in seconds). */
export interface Role {
  ttl: number;
  max_ttl: number;
  allow_localhost: boolean;
  allowed_domains: string[];
  allowed_domains_template: boolean;
  allow_bare_domains: boolean;
  allow_subdomains: boolean;
  allow_glob_domains: boolean;
  allow_wildcard_certificates: boolean;
  allow_any_name: boolean;
  enforce_hostnames: boolean;
  allow_ip_sans: boolean;
  allowed_uri_sans: string[];
  allowed_other_sans: string[];
  allowed_serial_numbers: string[];
  server_flag: boolean;
  client_flag: boolean;
  code_signing_flag: boolean;
  email_protection_flag: boolean;
  key_type: string;
  key_bits: number;
  key_usage: string[];
  ext_key_usage: string[];
  ext_key_usage_oids: string[];
  use_csr_common_name: boolean;
  use_csr_sans: boolean;
  ou: string[];
  organization: string[];
  country: string[];
  locality: string[];
  province: string[];
  street_address: string[];
  postal_code: string[];
  generate_lease: boolean;
  no_store: boolean;
  require_cn: boolean;
  policy_identifiers: string[];
  basic_constraints_valid_for_non_ca: boolean;
  not_before_duration: number;
  /** The subject serial number certificates of this role carry when the request names none. */
  serial_number: string;
  /** The issuer that signs for this role: `default`, an issuer id or name. */
  issuer_ref: string;
}

const field = (type: FieldSpec['type'], value: unknown, description: string): FieldSpec => ({ type, default: value, description });
const list = (description: string): FieldSpec => field('commaStringSlice', [], description);

/** Every role parameter with the spec's default. */
export const ROLE_FIELDS: Record<keyof Role, FieldSpec> = {
  ttl: field('duration', 0, 'default certificate TTL'),
  max_ttl: field('duration', 0, 'maximum certificate TTL'),
  allow_localhost: field('bool', true, 'allow localhost and localdomain'),
  allowed_domains: list('domains the role issues for'),
  allowed_domains_template: field('bool', false, 'allowed_domains may hold identity templates'),
  allow_bare_domains: field('bool', false, 'allow the allowed domains themselves'),
  allow_subdomains: field('bool', false, 'allow subdomains of the allowed domains'),
  allow_glob_domains: field('bool', false, 'allowed domains may be globs'),
  allow_wildcard_certificates: field('bool', true, 'allow wildcard names'),
  allow_any_name: field('bool', false, 'allow any name'),
  enforce_hostnames: field('bool', true, 'names must be valid host names'),
  allow_ip_sans: field('bool', true, 'allow IP SANs'),
  allowed_uri_sans: list('URI SANs allowed (globs)'),
  allowed_other_sans: list('other SANs allowed: <oid>;UTF8:<value>'),
  allowed_serial_numbers: list('subject serial numbers allowed (globs)'),
  server_flag: field('bool', true, 'serverAuth extended key usage'),
  client_flag: field('bool', true, 'clientAuth extended key usage'),
  code_signing_flag: field('bool', false, 'codeSigning extended key usage'),
  email_protection_flag: field('bool', false, 'emailProtection extended key usage'),
  key_type: field('string', 'rsa', 'rsa, ec or any (signing only)'),
  key_bits: field('int', 0, 'key size'),
  key_usage: field('commaStringSlice', ['DigitalSignature', 'KeyAgreement', 'KeyEncipherment'], 'key usages'),
  ext_key_usage: list('extended key usages by name'),
  ext_key_usage_oids: list('extended key usages by OID'),
  use_csr_common_name: field('bool', true, 'take the CN from the CSR when signing'),
  use_csr_sans: field('bool', true, 'take the SANs from the CSR when signing'),
  ou: list('subject OU'),
  organization: list('subject O'),
  country: list('subject C'),
  locality: list('subject L'),
  province: list('subject ST'),
  street_address: list('subject street'),
  postal_code: list('subject postal code'),
  generate_lease: field('bool', false, 'issue a lease with each certificate'),
  no_store: field('bool', false, 'do not store issued certificates'),
  require_cn: field('bool', true, 'a common name is required'),
  policy_identifiers: list('certificate policy OIDs'),
  basic_constraints_valid_for_non_ca: field('bool', false, 'mark leaves CA:FALSE'),
  not_before_duration: field('duration', 30, 'NotBefore backdating'),
  serial_number: field('string', '', 'subject serial number used when the request gives none'),
  issuer_ref: field('string', 'default', 'the issuer that signs: default, an issuer id or name'),
};

const OID = /^\d+(\.\d+)+$/;

/** Builds a role from a write (a write replaces the whole role), or throws the real service's 400. */
export function roleFromFields(fields: FieldData): { role: Role; warnings: string[] } {
  const role = Object.fromEntries(Object.keys(ROLE_FIELDS).map((name) => [name, fields.get(name)])) as Role;
  const key = resolveKeySpec(role.key_type, role.key_bits, true);
  if (typeof key === 'string') throw badRequest(key);
  role.key_bits = key.bits;
  if (role.max_ttl > 0 && role.ttl > role.max_ttl) throw badRequest('"ttl" value must be less than "max_ttl" value');
  for (const oid of [...role.ext_key_usage_oids, ...role.policy_identifiers]) {
    if (!OID.test(oid)) throw badRequest(`${oid} is not a valid OID`);
  }
  for (const other of role.allowed_other_sans) {
    if (other !== '*' && !/^[\d.]+;(UTF8|UTF-8):.*$/i.test(other)) throw badRequest(`could not parse allowed other SAN: ${other}`);
  }
  const warnings: string[] = [];
  if (role.no_store && role.generate_lease) {
    role.generate_lease = false;
    warnings.push('"no_store" and "generate_lease" cannot both be set; "generate_lease" is turned off');
  }
  return { role, warnings };
}

/** Roles written before a field existed read back with that field's default. */
export function withDefaults(stored: Partial<Role>): Role {
  // Defaults first in their order, then anything else stored, as `{ ...defaults, ...stored }`
  // gives; only a default actually used is copied (every issue reads its role: cloning all of
  // them cost ~15 µs a read).
  const given = stored as Record<string, unknown>;
  const role: Record<string, unknown> = {};
  for (const [name, spec] of DEFAULT_ENTRIES) role[name] = name in given ? given[name] : copyOf(spec.default);
  for (const name of Object.keys(given)) if (!(name in role)) role[name] = given[name];
  return role as unknown as Role;
}

const DEFAULT_ENTRIES = Object.entries(ROLE_FIELDS);
const copyOf = (value: unknown) => (typeof value === 'object' && value !== null ? structuredClone(value) : value);
