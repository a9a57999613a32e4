import { isTemplated } from '../../acl/policy.js';
import { renderTemplate } from '../../acl/template.js';
import { createPublicKey, type KeyObject } from 'node:crypto';
import * as asn from '@peculiar/asn1-x509';
import { badRequest } from '../../../core/errors.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { loadCa } from './ca.js';
import { certificateData, type PkiEngine } from './engine.js';
import {
  checkFormat,
  csrOrThrow,
  extKeyUsageOids,
  keyUsageFlags,
  leafExtensions,
  NAME_FIELDS,
  resolveNames,
  resolveValidity,
} from './issue.js';
import { describeKey, type KeyType } from './keys.js';
import { withDefaults, type Role } from './role.js';
import { pkiStore } from './storage.js';
import {
  authorityKeyId,
  extKeyUsage,
  keyIdentifier,
  keyUsage,
  randomSerial,
  signCertificate,
  subjectKeyId,
  toPem,
  type ParsedCsr,
} from './x509.js';

const CSR_FIELD: Record<string, FieldSpec> = { csr: { type: 'string', default: '', description: 'PEM certificate request' } };
const ROLE_PARAM: Record<string, FieldSpec> = { role: { type: 'string', description: 'role name' } };
const ISSUER_REF: Record<string, FieldSpec> = {
  issuer_ref: { type: 'string', default: '', description: "the issuer to sign with (default: the role's issuer_ref)" },
};
const VERBATIM_FIELDS: Record<string, FieldSpec> = {
  role: { type: 'string', description: 'role whose TTLs and storage settings apply' },
  ...NAME_FIELDS,
  ...CSR_FIELD,
  ...ISSUER_REF,
  key_usage: { type: 'commaStringSlice', default: ['DigitalSignature', 'KeyAgreement', 'KeyEncipherment'], description: 'key usages' },
  ext_key_usage: { type: 'commaStringSlice', default: [], description: 'extended key usages' },
  ext_key_usage_oids: { type: 'commaStringSlice', default: [], description: 'extended key usage OIDs' },
};

function roleOrThrow(request: HandlerRequest): Role {
  const name = request.params.role as string;
  const role = pkiStore(request).role(name);
  if (!role) throw badRequest(`unknown role: ${name}`);
  return role;
}

/** The CSR's key must fit the role: type, and at least the role's size (RSA never below 2048). */
function checkCsrKey(role: Role, key: KeyObject): void {
  const { type, bits } = describeKey(key);
  if (role.key_type !== 'any' && type !== role.key_type) throw badRequest(`role requires keys of type ${role.key_type}`);
  if (type === 'rsa' && bits < 2048) throw badRequest('RSA keys < 2048 bits are unsafe and not supported');
  if (role.key_type !== 'any' && bits < role.key_bits)
    throw badRequest(`role requires a minimum of a ${role.key_bits}-bit key, but CSR's key is ${bits} bits`);
}

/** The issuer that signs: the path's (`issuer/:issuer_ref/…`), else the request's, else the role's. */
function issuerRefOf(request: HandlerRequest, role: Role): string {
  if (request.params.issuer_ref) return request.params.issuer_ref;
  const requested = request.fields.get<string>('issuer_ref');
  return requested !== '' ? requested : role.issuer_ref;
}

interface LeafInput {
  role: Role;
  leasePath: string;
  csr?: ParsedCsr;
  /** sign-verbatim: subject and requested extensions come from the CSR as they are. */
  verbatim?: { keyUsage: string[]; extKeyUsage: string[]; extKeyUsageOids: string[] };
}

/** Verbatim: the CSR's subject and extensions, plus the usages the caller asked for. */
function verbatimExtensions(input: Required<Pick<LeafInput, 'csr' | 'verbatim'>>, publicKey: KeyObject, caKeyId: Buffer) {
  const { verbatim, csr } = input;
  const replaced = new Set([asn.id_ce_keyUsage, asn.id_ce_extKeyUsage, asn.id_ce_subjectKeyIdentifier, asn.id_ce_authorityKeyIdentifier]);
  const ekus = extKeyUsageOids({
    server_flag: false,
    client_flag: false,
    code_signing_flag: false,
    email_protection_flag: false,
    ext_key_usage: verbatim.extKeyUsage,
    ext_key_usage_oids: verbatim.extKeyUsageOids,
  });
  const flags = keyUsageFlags(verbatim.keyUsage);
  return [
    ...csr.extensions.filter((item) => !replaced.has(item.extnID)),
    flags === 0 ? undefined : keyUsage(flags),
    ekus.length === 0 ? undefined : extKeyUsage(ekus),
    subjectKeyId(keyIdentifier(publicKey)),
    authorityKeyId(caKeyId),
  ];
}

/**
 * A role with `allowed_domains_template`: its domains rendered for the caller's entity
 * (`{{identity.entity.aliases.<accessor>.name}}.example.com`); a domain whose template does not
 * resolve (no entity, no such alias) allows nothing, as in the real engine.
 */
function withDomainsRendered(engine: PkiEngine, request: HandlerRequest, role: Role): Role {
  if (!role.allowed_domains_template) return role;
  const entityId = request.token?.entityId;
  const lookup = entityId ? engine.context.identity.templateLookup(entityId) : () => undefined;
  const rendered = role.allowed_domains.map((domain) => (isTemplated(domain) ? renderTemplate(domain, lookup) : domain));
  return { ...role, allowed_domains: rendered.filter((domain): domain is string => domain !== undefined) };
}

/** issue, sign and sign-verbatim: check the request against the role, sign, store, lease. */
async function issueLeaf(engine: PkiEngine, request: HandlerRequest, input: LeafInput): Promise<LogicalResponse> {
  const { role } = input;
  checkFormat(request.fields);
  const store = pkiStore(request);
  const ca = loadCa(engine, { store, mountUuid: request.mount.uuid }, issuerRefOf(request, role));
  if (!input.csr && role.key_type === 'any') throw badRequest('role key type "any" not allowed for issuing certificates, only signing');
  if (input.csr) checkCsrKey(role, input.csr.publicKey);
  const names = resolveNames(withDomainsRendered(engine, request, role), request.fields, input.verbatim ? undefined : input.csr);
  const now = engine.now();
  const validity = resolveValidity(role, request.fields, request.mount, ca, now);

  const privateKey = input.csr ? undefined : await engine.keys.take({ type: role.key_type as KeyType, bits: role.key_bits });
  const publicKey = input.csr?.publicKey ?? createPublicKey(privateKey as KeyObject);
  const serial = randomSerial();
  const verbatim = input.verbatim && input.csr ? { verbatim: input.verbatim, csr: input.csr } : undefined;
  const subject = verbatim ? verbatim.csr.subject : names.subject;
  const extensions = verbatim
    ? verbatimExtensions(verbatim, publicKey, ca.keyId)
    : leafExtensions(role, names.altNames, publicKey, ca, store);
  const der = await signCertificate(
    { serial, subject, issuer: ca.subject, notBefore: validity.notBefore, notAfter: validity.notAfter, publicKey, extensions },
    ca.signer,
  );
  const data = certificateData({
    format: request.fields.get<string>('format'),
    privateKeyFormat: request.fields.get<string>('private_key_format'),
    der,
    serial,
    notAfter: validity.notAfter,
    ca,
    privateKey,
    withChain: true,
  });
  const serialText = data.serial_number as string;
  if (!role.no_store) store.storeCert(serialText, toPem(der, 'CERTIFICATE'), validity.notAfter.getTime(), ca.issuerId);
  const response: LogicalResponse = { data, ...(validity.warnings.length > 0 ? { warnings: validity.warnings } : {}) };
  if (role.generate_lease && !role.no_store) {
    const seconds = Math.max(1, Math.floor((validity.notAfter.getTime() - now.getTime()) / 1000));
    const { lease } = engine.context.leases.create({
      mount: request.mount,
      path: input.leasePath,
      tokenId: request.token?.id ?? null,
      ttl: seconds,
      maxTtl: seconds,
      renewable: false,
      revokeData: { serial_number: serialText },
    });
    response.lease = lease;
  }
  return response;
}

/** The role sign-verbatim checks against: the named role's TTLs and storage, anything else allowed. */
function verbatimRole(named: Role | undefined): Role {
  return withDefaults({
    ...named,
    allow_any_name: true,
    enforce_hostnames: false,
    allowed_uri_sans: ['*'],
    allowed_other_sans: ['*'],
    allowed_serial_numbers: ['*'],
    key_type: 'any',
    require_cn: false,
    use_csr_common_name: true,
    use_csr_sans: true,
  });
}

/** Issue, sign and sign-verbatim, with the default issuer or the one the path names (`issuer/:issuer_ref/…`). */
export function issuePaths(engine: PkiEngine): PathSpec[] {
  const issue = (request: HandlerRequest) =>
    issueLeaf(engine, request, { role: roleOrThrow(request), leasePath: `issue/${request.params.role}` });
  const sign = (request: HandlerRequest) =>
    issueLeaf(engine, request, { role: roleOrThrow(request), csr: csrOrThrow(request), leasePath: `sign/${request.params.role}` });
  const signVerbatim = (request: HandlerRequest) =>
    issueLeaf(engine, request, {
      role: verbatimRole(request.params.role ? roleOrThrow(request) : undefined),
      csr: csrOrThrow(request),
      leasePath: request.path,
      verbatim: {
        keyUsage: request.fields.get('key_usage'),
        extKeyUsage: request.fields.get('ext_key_usage'),
        extKeyUsageOids: request.fields.get('ext_key_usage_oids'),
      },
    });
  return ['', 'issuer/:issuer_ref/'].flatMap((prefix): PathSpec[] => [
    {
      pattern: `${prefix}issue/:role`,
      summary: 'Issue a certificate and its key under a role.',
      fields: { ...ROLE_PARAM, ...NAME_FIELDS, ...ISSUER_REF },
      operations: { update: issue },
    },
    {
      pattern: `${prefix}sign/:role`,
      summary: 'Sign a CSR under a role.',
      fields: { ...ROLE_PARAM, ...NAME_FIELDS, ...CSR_FIELD, ...ISSUER_REF },
      operations: { update: sign },
    },
    ...[`${prefix}sign-verbatim`, `${prefix}sign-verbatim/:role`].map((pattern): PathSpec => ({
      pattern,
      summary: 'Sign a CSR as it is: its subject and extensions, with the requested usages.',
      fields: VERBATIM_FIELDS,
      operations: { update: signVerbatim },
    })),
  ]);
}
