import type { KeyObject } from 'node:crypto';
import * as asn from '@peculiar/asn1-x509';
import { AsnConvert } from '@peculiar/asn1-schema';
import { badRequest } from '../../../core/errors.js';
import type { FieldData } from '../../framework/fields.js';
import type { FieldSpec, HandlerRequest, MountInfo } from '../../framework/types.js';
import { effectiveTtls } from '../../leases/ttl.js';
import type { LoadedCa } from './ca.js';
import type { PkiStorage } from './storage.js';
import { asciiHostname, firstDisallowedName, globMatch, otherSansProblem, parseOtherSans } from './policy.js';
import { ROLE_FIELDS, withDefaults, type Role } from './role.js';
import {
  altNamesExtension,
  authorityInfoAccess,
  authorityKeyId,
  basicConstraints,
  buildName,
  certificatePolicies,
  crlDistributionPoints,
  emptyAltNames,
  extKeyUsage,
  isIpAddress,
  keyIdentifier,
  keyUsage,
  nameConstraints,
  nameValue,
  OID_CN,
  OID_SERIAL_NUMBER,
  subjectKeyId,
  parseCsr,
  type AltNames,
  type ParsedCsr,
} from './x509.js';

const field = (type: FieldSpec['type'], value: unknown, description: string): FieldSpec => ({ type, default: value, description });

/** Request fields shared by issue, sign, root and intermediate generation. */
export const NAME_FIELDS: Record<string, FieldSpec> = {
  common_name: field('string', '', 'the certificate common name'),
  alt_names: field('string', '', 'comma-separated DNS names and email addresses'),
  ip_sans: field('commaStringSlice', [], 'IP SANs'),
  uri_sans: field('commaStringSlice', [], 'URI SANs'),
  other_sans: field('commaStringSlice', [], 'other SANs: <oid>;UTF8:<value>'),
  ttl: field('duration', 0, 'requested TTL'),
  not_after: field('string', '', 'NotAfter as YYYY-MM-ddTHH:MM:SSZ'),
  format: field('string', 'pem', 'pem, der or pem_bundle'),
  private_key_format: field('string', 'der', 'der or pkcs8'),
  exclude_cn_from_sans: field('bool', false, 'leave the CN out of the SANs'),
  serial_number: field('string', '', 'the subject serial number'),
};

export const FORMATS = ['pem', 'der', 'pem_bundle'];

export function checkFormat(fields: FieldData): void {
  if (!FORMATS.includes(fields.get<string>('format')))
    throw badRequest('the "format" path parameter must be "pem", "der", or "pem_bundle"');
  const keyFormat = fields.get<string>('private_key_format');
  if (keyFormat !== 'der' && keyFormat !== 'pkcs8' && keyFormat !== '')
    throw badRequest('the "private_key_format" path parameter must be "der" or "pkcs8"');
}

/** The role a CA operation (root, intermediate, sign-intermediate) is checked against: anything goes. */
export function caRole(useCsrValues: boolean): Role {
  return withDefaults({
    allow_any_name: true,
    enforce_hostnames: false,
    allow_localhost: true,
    allow_ip_sans: true,
    allowed_uri_sans: ['*'],
    allowed_other_sans: ['*'],
    allowed_serial_numbers: ['*'],
    use_csr_common_name: useCsrValues,
    use_csr_sans: useCsrValues,
    key_type: 'any',
    require_cn: true,
    not_before_duration: ROLE_FIELDS.not_before_duration.default as number,
  });
}

export interface Names {
  subject: asn.Name;
  commonName: string;
  altNames: AltNames;
}

const splitDedupSort = (text: string) =>
  [
    ...new Set(
      text
        .split(',')
        .map((item) => item.trim().toLowerCase())
        .filter((item) => item !== ''),
    ),
  ].sort();

/**
 * SANs one certificate may carry here. Past a few thousand names a certificate exceeds what X.509
 * parsers accept (asn1js stops at 10,000 nodes), so more is refused up front with a 400.
 */
export const MAX_SANS = 1000;

function checkSanCount(fields: FieldData, csr: ParsedCsr | undefined): void {
  const fromCsr = csr ? Object.values(csr.altNames).reduce<number>((sum, list: unknown[]) => sum + list.length, 0) : 0;
  const requested =
    fields.get<string>('alt_names').split(',').length +
    fields.get<string[]>('ip_sans').length +
    fields.get<string[]>('uri_sans').length +
    fields.get<string[]>('other_sans').length;
  const count = Math.max(fromCsr, requested);
  if (count > MAX_SANS) throw badRequest(`too many subject alternative names: ${count} requested, at most ${MAX_SANS} are supported`);
}

/** CN, subject and SANs for a request, checked against the role in the real service's order. */
export function resolveNames(role: Role, fields: FieldData, csr: ParsedCsr | undefined): Names {
  checkSanCount(fields, csr);
  let cn = csr && role.use_csr_common_name ? nameValue(csr.subject, OID_CN) : '';
  if (cn === '') {
    cn = fields.get<string>('common_name');
    if (cn === '' && role.require_cn) {
      throw badRequest(
        'the common_name field is required, or must be provided in a CSR with "use_csr_common_name" set to true, ' +
          'unless "require_cn" is set to false',
      );
    }
  }
  let ridSerial = fields.get<string>('serial_number');
  if (ridSerial === '' && csr) ridSerial = nameValue(csr.subject, OID_SERIAL_NUMBER);
  // The role's own subject serial needs no allow-list: the role chose it.
  const fromRole = ridSerial === '' && role.serial_number !== '';
  if (fromRole) ridSerial = role.serial_number;

  const names = emptyAltNames();
  const fromCsr = csr !== undefined && role.use_csr_sans;
  if (fromCsr) {
    names.dns.push(...csr.altNames.dns);
    names.email.push(...csr.altNames.email);
  }
  const addName = (name: string) => {
    if (name.includes('@')) names.email.push(name);
    else {
      // Names that are not host names are left out of the SANs, as upstream.
      const host = asciiHostname(name);
      if (host !== undefined) names.dns.push(host);
    }
  };
  if (cn !== '' && !fields.get<boolean>('exclude_cn_from_sans')) addName(cn);
  if (!fromCsr) splitDedupSort(fields.get<string>('alt_names')).forEach(addName);

  if (cn !== '') {
    const bad = firstDisallowedName(role, [cn]);
    if (bad !== undefined) throw badRequest(`common name ${bad} not allowed by this role`);
  }
  if (
    ridSerial !== '' &&
    !fromRole &&
    !role.allowed_serial_numbers.some(
      (allowed) => allowed !== '' && (allowed === ridSerial || (allowed.includes('*') && globMatch(allowed, ridSerial))),
    )
  ) {
    throw badRequest(`serial_number ${ridSerial} not allowed by this role`);
  }
  const badDns = firstDisallowedName(role, names.dns);
  if (badDns !== undefined) throw badRequest(`subject alternate name ${badDns} not allowed by this role`);
  const badEmail = firstDisallowedName(role, names.email);
  if (badEmail !== undefined) throw badRequest(`email address ${badEmail} not allowed by this role`);

  const otherSans = fields.get<string[]>('other_sans');
  if (otherSans.length > 0) {
    const requested = parseOtherSans(otherSans);
    if (typeof requested === 'string') throw badRequest(requested);
    const problem = otherSansProblem(role, requested);
    if (problem) throw badRequest(problem);
    for (const [oid, values] of requested) for (const value of values) names.other.push({ oid, value });
  }

  if (fromCsr) {
    if (csr.altNames.ip.length > 0 && !role.allow_ip_sans)
      throw badRequest('IP Subject Alternative Names are not allowed in this role, but was provided some via CSR');
    names.ip.push(...csr.altNames.ip);
  } else {
    const ips = fields.get<string[]>('ip_sans');
    if (ips.length > 0 && !role.allow_ip_sans)
      throw badRequest(`IP Subject Alternative Names are not allowed in this role, but was provided [${ips.join(' ')}]`);
    for (const ip of ips) {
      if (!isIpAddress(ip)) throw badRequest(`the value '${ip}' is not a valid IP address`);
      names.ip.push(ip);
    }
  }

  const uris = fromCsr ? csr.altNames.uri : fields.get<string[]>('uri_sans');
  if (uris.length > 0) {
    if (role.allowed_uri_sans.length === 0) {
      throw badRequest(`URI Subject Alternative Names are not allowed in this role, but were provided via ${fromCsr ? 'CSR' : 'the API'}`);
    }
    for (const uri of uris) {
      if (!role.allowed_uri_sans.some((allowed) => globMatch(allowed, uri)))
        throw badRequest('URI Subject Alternative Names were provided via CSR which are not valid for this role');
      if (!URL.canParse(uri)) throw badRequest(`the provided URI Subject Alternative Name '${uri}' is not a valid URI`);
      names.uri.push(uri);
    }
  }

  const unique = (values: string[]) => [...new Set(values)];
  const subject = buildName({
    country: unique(role.country),
    province: unique(role.province),
    locality: unique(role.locality),
    streetAddress: unique(role.street_address),
    postalCode: unique(role.postal_code),
    organization: unique(role.organization),
    ou: unique(role.ou),
    commonName: cn,
    serialNumber: ridSerial,
  });
  return { subject, commonName: cn, altNames: { ...names, dns: unique(names.dns), email: unique(names.email) } };
}

/** Go's RFC3339Nano: fractional seconds only when present, without trailing zeros. */
export function rfc3339Nano(date: Date): string {
  return date.toISOString().replace(/\.(\d*?)0*Z$/, (_all, digits: string) => (digits === '' ? 'Z' : `.${digits}Z`));
}

export interface Validity {
  notBefore: Date;
  notAfter: Date;
  warnings: string[];
}

/**
 * NotBefore/NotAfter: requested TTL (or `not_after`), else the role's, else the mount default;
 * capped silently at the role's (or the mount's) maximum; never past the CA unless allowed.
 */
export function resolveValidity(
  role: Role,
  fields: FieldData,
  mount: MountInfo,
  ca: LoadedCa | undefined,
  now: Date,
  allowPastCa = false,
): Validity {
  const mountTtls = effectiveTtls(mount.config);
  const notAfterText = fields.get<string>('not_after');
  if (notAfterText !== '' && fields.get<number>('ttl') > 0)
    throw badRequest('Either ttl or not_after should be provided. Both should not be provided in the same request.');
  let notAfter: Date;
  if (notAfterText !== '') {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(notAfterText) || Number.isNaN(Date.parse(notAfterText))) {
      throw badRequest(`cannot parse not_after "${notAfterText}" as RFC 3339 time YYYY-MM-ddTHH:MM:SSZ`);
    }
    notAfter = new Date(notAfterText);
  } else {
    let ttl = fields.get<number>('ttl') || role.ttl || mountTtls.defaultTtl;
    const maxTtl = role.max_ttl || mountTtls.maxTtl;
    if (ttl > maxTtl) ttl = maxTtl;
    notAfter = new Date(now.getTime() + ttl * 1000);
  }
  const warnings: string[] = [];
  const behavior = allowPastCa ? 'permit' : (ca?.leafNotAfterBehavior ?? 'err');
  if (ca && notAfter.getTime() > ca.notAfter.getTime() && behavior === 'truncate') {
    // The issuer's leaf_not_after_behavior: leaves end with the issuer.
    notAfter = new Date(ca.notAfter.getTime());
  } else if (ca && notAfter.getTime() > ca.notAfter.getTime()) {
    if (behavior === 'err') {
      throw badRequest(
        `cannot satisfy request, as TTL would result in notAfter ${rfc3339Nano(notAfter)} ` +
          `that is beyond the expiration of the CA certificate at ${rfc3339Nano(ca.notAfter)}`,
      );
    }
    if (allowPastCa)
      warnings.push(
        "The expiration time for the signed certificate is after the CA's expiration time. " +
          'If the new certificate is not treated as a root, ' +
          "validation paths with the certificate past the issuing CA's expiration time will fail.",
      );
  }
  return { notBefore: new Date(now.getTime() - role.not_before_duration * 1000), notAfter, warnings };
}

/**
 * Made on first use: read as this module loads, the flags took the ASN.1 schemas into every
 * start-up (scripts/build.mjs, LAZY_MODULES).
 */
let keyUsages: Record<string, number> | undefined;
const keyUsageTable = (): Record<string, number> =>
  (keyUsages ??= {
    digitalsignature: asn.KeyUsageFlags.digitalSignature,
    contentcommitment: asn.KeyUsageFlags.nonRepudiation,
    keyencipherment: asn.KeyUsageFlags.keyEncipherment,
    dataencipherment: asn.KeyUsageFlags.dataEncipherment,
    keyagreement: asn.KeyUsageFlags.keyAgreement,
    certsign: asn.KeyUsageFlags.keyCertSign,
    crlsign: asn.KeyUsageFlags.cRLSign,
    encipheronly: asn.KeyUsageFlags.encipherOnly,
    decipheronly: asn.KeyUsageFlags.decipherOnly,
  });

const EXT_KEY_USAGES: Record<string, string> = {
  any: '2.5.29.37.0',
  serverauth: '1.3.6.1.5.5.7.3.1',
  clientauth: '1.3.6.1.5.5.7.3.2',
  codesigning: '1.3.6.1.5.5.7.3.3',
  emailprotection: '1.3.6.1.5.5.7.3.4',
  ipsecendsystem: '1.3.6.1.5.5.7.3.5',
  ipsectunnel: '1.3.6.1.5.5.7.3.6',
  ipsecuser: '1.3.6.1.5.5.7.3.7',
  timestamping: '1.3.6.1.5.5.7.3.8',
  ocspsigning: '1.3.6.1.5.5.7.3.9',
  microsoftservergatedcrypto: '1.3.6.1.4.1.311.10.3.3',
  netscapeservergatedcrypto: '2.16.840.1.113730.4.1',
  microsoftcommercialcodesigning: '1.3.6.1.4.1.311.2.1.22',
  microsoftkernelcodesigning: '1.3.6.1.4.1.311.61.1.1',
};

/** Key usage names (without the prefix, any case) as flags; unknown names are ignored, as upstream. */
export function keyUsageFlags(names: string[]): number {
  return names.reduce(
    (flags, name) =>
      flags |
      (keyUsageTable()[
        name
          .trim()
          .toLowerCase()
          .replace(/^keyusage/, '')
      ] ?? 0),
    0,
  );
}

export function extKeyUsageOids(
  role: Pick<Role, 'server_flag' | 'client_flag' | 'code_signing_flag' | 'email_protection_flag' | 'ext_key_usage' | 'ext_key_usage_oids'>,
): string[] {
  const oids: string[] = [];
  if (role.server_flag) oids.push(EXT_KEY_USAGES.serverauth as string);
  if (role.client_flag) oids.push(EXT_KEY_USAGES.clientauth as string);
  if (role.code_signing_flag) oids.push(EXT_KEY_USAGES.codesigning as string);
  if (role.email_protection_flag) oids.push(EXT_KEY_USAGES.emailprotection as string);
  for (const name of role.ext_key_usage) {
    const oid =
      EXT_KEY_USAGES[
        name
          .trim()
          .toLowerCase()
          .replace(/^extkeyusage/, '')
      ];
    if (oid) oids.push(oid);
  }
  oids.push(...role.ext_key_usage_oids);
  return [...new Set(oids)];
}

export function urlExtensions(store: PkiStorage): asn.Extension[] {
  const urls = store.urls();
  if (!urls) return [];
  return [authorityInfoAccess(urls.issuing_certificates, urls.ocsp_servers), crlDistributionPoints(urls.crl_distribution_points)].filter(
    (item): item is asn.Extension => item !== undefined,
  );
}

/** Extensions of a leaf certificate issued under `role`. */
export function leafExtensions(
  role: Role,
  names: AltNames,
  publicKey: KeyObject,
  ca: LoadedCa,
  store: PkiStorage,
): (asn.Extension | undefined)[] {
  const flags = keyUsageFlags(role.key_usage);
  const ekus = extKeyUsageOids(role);
  return [
    role.basic_constraints_valid_for_non_ca ? basicConstraints(false) : undefined,
    flags === 0 ? undefined : keyUsage(flags),
    ekus.length === 0 ? undefined : extKeyUsage(ekus),
    subjectKeyId(keyIdentifier(publicKey)),
    authorityKeyId(ca.keyId),
    altNamesExtension(names),
    certificatePolicies(role.policy_identifiers),
    ...urlExtensions(store),
  ];
}

/** Extensions of a CA certificate (root, or intermediate signed here). */
export function caExtensions(options: {
  names: AltNames;
  publicKey: KeyObject;
  issuerKeyId: Buffer;
  pathLength: number | undefined;
  permittedDnsDomains: string[];
  extraKeyUsage?: number;
  store: PkiStorage;
}): (asn.Extension | undefined)[] {
  return [
    basicConstraints(true, options.pathLength),
    keyUsage(asn.KeyUsageFlags.keyCertSign | asn.KeyUsageFlags.cRLSign | (options.extraKeyUsage ?? 0)),
    subjectKeyId(keyIdentifier(options.publicKey)),
    authorityKeyId(options.issuerKeyId),
    altNamesExtension(options.names),
    nameConstraints(options.permittedDnsDomains),
    ...urlExtensions(options.store),
  ];
}

/** The key usage flags a CSR asks for (sign-intermediate with use_csr_values). */
export function csrKeyUsage(csr: ParsedCsr): number {
  const found = csr.extensions.find((item) => item.extnID === asn.id_ce_keyUsage);
  return found ? AsnConvert.parse(found.extnValue.buffer, asn.KeyUsage).toNumber() : 0;
}

/** Subject fields CA operations take from the request (roles carry them for leaves). */
export const SUBJECT_FIELDS: Record<string, FieldSpec> = Object.fromEntries(
  ['ou', 'organization', 'country', 'locality', 'province', 'street_address', 'postal_code'].map((name) => [
    name,
    field('commaStringSlice', [], `subject ${name}`),
  ]),
);

/** The permissive CA role with the request's subject fields. */
export function caRoleFromRequest(fields: FieldData, useCsrValues: boolean): Role {
  const role = caRole(useCsrValues);
  for (const name of Object.keys(SUBJECT_FIELDS)) (role as unknown as Record<string, unknown>)[name] = fields.get<string[]>(name);
  return role;
}

/** `max_path_length`: -1 derives from the signing CA (one less, or none); a CA with zero cannot sign CAs. */
export function childPathLength(requested: number, signerPathLength: number | undefined): number | undefined {
  if (signerPathLength === 0)
    throw badRequest('signing certificate has a max path length of zero, and cannot issue further CA certificates');
  if (requested >= 0) return requested;
  return signerPathLength === undefined ? undefined : signerPathLength - 1;
}

/** The request's CSR, parsed, or the real service's 400. */
export function csrOrThrow(request: HandlerRequest): ParsedCsr {
  const text = request.fields.get<string>('csr');
  if (text === '') throw badRequest('"csr" is empty');
  const csr = parseCsr(text);
  if (typeof csr === 'string') throw badRequest(csr);
  return csr;
}
