import { AsnConvert } from '@peculiar/asn1-schema';
import * as asn from '@peculiar/asn1-x509';
import { badRequest } from '../../../core/errors.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { caKeyFor, certificatesIn, generationType, installIssuer, isCaCertificate, KEY_FIELDS } from './authority.js';
import { loadCa, parseCertificate } from './ca.js';
import { certificateData, type PkiEngine } from './engine.js';
import {
  caExtensions,
  caRoleFromRequest,
  checkFormat,
  childPathLength,
  csrKeyUsage,
  csrOrThrow,
  NAME_FIELDS,
  resolveNames,
  resolveValidity,
  SUBJECT_FIELDS,
} from './issue.js';
import { checkName, pkiStore } from './storage.js';
import { authorityKeyId, keyIdentifier, randomSerial, signCertificate, signTbsCertificate, toPem } from './x509.js';

export const CA_FIELDS: Record<string, FieldSpec> = {
  ...NAME_FIELDS,
  ...SUBJECT_FIELDS,
  max_path_length: { type: 'int', default: -1, description: '-1: no limit (or one less than the signer)' },
  permitted_dns_domains: { type: 'commaStringSlice', default: [], description: 'name constraints (DNS)' },
};
const ISSUER_REF: Record<string, FieldSpec> = { issuer_ref: { type: 'string', default: 'default', description: 'the signing issuer' } };
const GENERATE_FIELDS: Record<string, FieldSpec> = {
  type: { type: 'string', description: 'internal, exported, kms or existing' },
  ...CA_FIELDS,
  ...KEY_FIELDS,
  issuer_name: { type: 'string', default: '', description: 'a name for the new issuer' },
};
const MAX_PATH_ZERO =
  'Max path length of the generated certificate is zero. This certificate cannot be used to issue intermediate CA certificates.';

/**
 * The spec's `root/generate` refuses to overwrite a mount's CA (the pre-issuer service answered
 * 200 with this warning and no data, before looking at the request); only the `upstream` dialect
 * (the multi-issuer service) adds another issuer there. `issuers/generate/root` and `root/rotate`
 * are multi-issuer paths and always add one.
 */
function refusesOverwrite(engine: PkiEngine, request: HandlerRequest): LogicalResponse | undefined {
  if (engine.context.config.dialect === 'upstream' || !request.path.startsWith('root/generate/')) return undefined;
  if (pkiStore(request).issuerIds().length === 0) return undefined;
  const warning =
    'Refusing to generate a root certificate over an existing root certificate. If you really want to destroy the ' +
    `original root certificate, please issue a delete against ${request.mount.path} root.`;
  return { data: null, warnings: [warning] };
}

/**
 * A new self-signed root, as a new issuer (the default one when there is none or the mount's
 * default follows the latest issuer). `root/rotate` names it `next` unless told otherwise and
 * that name is taken.
 */
async function generateRoot(engine: PkiEngine, request: HandlerRequest): Promise<LogicalResponse> {
  const refused = refusesOverwrite(engine, request);
  if (refused) return refused;
  const type = generationType(request);
  checkFormat(request.fields);
  const store = pkiStore(request);
  const taken = (name: string) => store.findIssuer(name) !== undefined;
  let issuerName = checkName('issuer', request.fields.get<string>('issuer_name'), taken);
  if (issuerName === '' && request.path.startsWith('root/rotate/') && !taken('next')) issuerName = 'next';
  const role = caRoleFromRequest(request.fields, false);
  const names = resolveNames(role, request.fields, undefined);
  const now = engine.now();
  const validity = resolveValidity(role, request.fields, request.mount, undefined, now);
  const maxPath = request.fields.get<number>('max_path_length');
  const key = await caKeyFor(engine, request, store, type);
  const { signer } = key;
  const keyId = keyIdentifier(signer.publicKey);
  const serial = randomSerial();
  const extensions = caExtensions({
    names: names.altNames,
    publicKey: signer.publicKey,
    issuerKeyId: keyId,
    pathLength: maxPath >= 0 ? maxPath : undefined,
    permittedDnsDomains: request.fields.get<string[]>('permitted_dns_domains'),
    store,
  });
  const template = { serial, subject: names.subject, issuer: names.subject, publicKey: signer.publicKey, extensions };
  const der = await signCertificate({ ...template, notBefore: validity.notBefore, notAfter: validity.notAfter }, signer);
  const certificate = toPem(der, 'CERTIFICATE');
  const issuer = await installIssuer(engine, request, {
    certificate,
    givenChain: [],
    key,
    name: issuerName,
    listed: true,
    mayFollow: true,
  });
  // No lease: the real service issues none for a root (a store from older understudy may hold one; backend.ts still honours it).
  const data = certificateData({
    format: request.fields.get<string>('format'),
    privateKeyFormat: request.fields.get<string>('private_key_format'),
    der,
    serial,
    notAfter: validity.notAfter,
    ca: undefined,
    privateKey: type === 'exported' ? key.local : undefined,
    withChain: false,
  });
  Object.assign(data, { issuer_id: issuer.id, issuer_name: issuer.name, key_id: key.entry.id, key_name: key.entry.name });
  return { data, ...(maxPath === 0 ? { warnings: [MAX_PATH_ZERO] } : {}) };
}

/** `root/sign-intermediate`, `issuer/:ref/sign-intermediate`: an intermediate CA from its CSR. */
async function signIntermediate(engine: PkiEngine, request: HandlerRequest): Promise<LogicalResponse> {
  checkFormat(request.fields);
  const store = pkiStore(request);
  const ref = request.params.issuer_ref ?? request.fields.get<string>('issuer_ref');
  const ca = loadCa(engine, { store, mountUuid: request.mount.uuid }, ref);
  const csr = csrOrThrow(request);
  const useCsrValues = request.fields.get<boolean>('use_csr_values');
  const role = caRoleFromRequest(request.fields, useCsrValues);
  const names = resolveNames(role, request.fields, csr);
  const now = engine.now();
  const validity = resolveValidity(role, request.fields, request.mount, ca, now, true);
  const pathLength = childPathLength(request.fields.get<number>('max_path_length'), ca.pathLength);
  const serial = randomSerial();
  const extensions = caExtensions({
    names: names.altNames,
    publicKey: csr.publicKey,
    issuerKeyId: ca.keyId,
    pathLength,
    permittedDnsDomains: request.fields.get<string[]>('permitted_dns_domains'),
    extraKeyUsage: useCsrValues ? csrKeyUsage(csr) : 0,
    store,
  });
  const subject = useCsrValues ? csr.subject : names.subject;
  const der = await signCertificate(
    {
      serial,
      subject,
      issuer: ca.subject,
      notBefore: validity.notBefore,
      notAfter: validity.notAfter,
      publicKey: csr.publicKey,
      extensions,
    },
    ca.signer,
  );
  const data = certificateData({
    format: request.fields.get<string>('format'),
    privateKeyFormat: 'der',
    der,
    serial,
    notAfter: validity.notAfter,
    ca,
    withChain: true,
  });
  store.storeCert(data.serial_number as string, toPem(der, 'CERTIFICATE'), validity.notAfter.getTime(), ca.issuerId);
  return { data, ...(validity.warnings.length > 0 ? { warnings: validity.warnings } : {}) };
}

/** `root/sign-self-issued`: re-signs a self-issued CA certificate with an issuer of this mount. */
async function signSelfIssued(engine: PkiEngine, request: HandlerRequest): Promise<LogicalResponse> {
  const pem = certificatesIn(request.fields.get<string>('certificate'))[0];
  if (!pem) throw badRequest('no certificate found in input');
  const certificate = parseCertificate(pem);
  const tbs = certificate.tbsCertificate;
  if (!Buffer.from(AsnConvert.serialize(tbs.issuer)).equals(Buffer.from(AsnConvert.serialize(tbs.subject))))
    throw badRequest('given certificate is not self-issued');
  if (!isCaCertificate(pem)) throw badRequest('given certificate is not a CA certificate');
  const ref = request.params.issuer_ref ?? request.fields.get<string>('issuer_ref');
  const ca = loadCa(engine, { store: pkiStore(request), mountUuid: request.mount.uuid }, ref);
  tbs.issuer = ca.subject;
  const others = (tbs.extensions ?? []).filter((item) => item.extnID !== asn.id_ce_authorityKeyIdentifier);
  tbs.extensions = new asn.Extensions([...others, authorityKeyId(ca.keyId)]);
  const der = await signTbsCertificate(tbs, ca.signer);
  return { data: { certificate: toPem(der, 'CERTIFICATE'), issuing_ca: ca.certificatePem } };
}

/** `DELETE root`: every issuer and key of the mount, as current releases do. */
function deleteAll(engine: PkiEngine, request: HandlerRequest): LogicalResponse {
  const store = pkiStore(request);
  const issuers = store.issuerIds();
  const keys = store.keyIds();
  engine.commit(request.mount.uuid, (tx) => {
    for (const id of issuers) tx.deleteIssuer(id);
    for (const id of keys) tx.deleteKey(id);
  });
  return {
    data: null,
    warnings: [
      'DELETE /root deletes all keys and issuers; prefer the new DELETE /key/:key_ref and DELETE /issuer/:issuer_ref ' +
        'for finer granularity, unless removal of all keys and issuers is desired.',
    ],
  };
}

/** Root generation and rotation, deleting everything, and what a root signs for others. */
export function rootPaths(engine: PkiEngine): PathSpec[] {
  const generate = (request: HandlerRequest) => engine.exclusive(request.mount.uuid, () => generateRoot(engine, request));
  const sign = (request: HandlerRequest) => signIntermediate(engine, request);
  const selfIssued = (request: HandlerRequest) => signSelfIssued(engine, request);
  const signFields = {
    ...CA_FIELDS,
    ...ISSUER_REF,
    csr: { type: 'string', default: '', description: 'PEM CSR' },
    use_csr_values: { type: 'bool', default: false, description: 'take subject and SANs from the CSR' },
  } satisfies Record<string, FieldSpec>;
  const selfIssuedFields = {
    ...ISSUER_REF,
    certificate: { type: 'string', default: '', description: 'PEM self-issued CA certificate' },
  } satisfies Record<string, FieldSpec>;
  return [
    ...['root/generate/:type', 'issuers/generate/root/:type', 'root/rotate/:type'].map((pattern): PathSpec => ({
      pattern,
      summary: 'Generate a self-signed root CA as a new issuer.',
      fields: GENERATE_FIELDS,
      operations: { update: generate },
    })),
    {
      pattern: 'root',
      summary: 'Delete every issuer and key of the mount.',
      sudo: true,
      operations: { delete: (request) => deleteAll(engine, request) },
    },
    ...['root/sign-intermediate', 'issuer/:issuer_ref/sign-intermediate'].map((pattern): PathSpec => ({
      pattern,
      summary: 'Sign an intermediate CA from its CSR.',
      fields: signFields,
      operations: { update: sign },
    })),
    ...['root/sign-self-issued', 'issuer/:issuer_ref/sign-self-issued'].map((pattern): PathSpec => ({
      pattern,
      summary: 'Re-sign a self-issued CA certificate with an issuer of this mount.',
      sudo: true,
      fields: selfIssuedFields,
      operations: { update: selfIssued },
    })),
  ];
}
