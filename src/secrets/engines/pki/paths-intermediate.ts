import { X509Certificate } from 'node:crypto';
import { badRequest } from '../../../core/errors.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { caKeyFor, certificatesIn, generationType, importBundle, isCaCertificate, KEY_FIELDS, writeKey } from './authority.js';
import { signerFor } from './ca.js';
import type { PkiEngine } from './engine.js';
import { caRoleFromRequest, checkFormat, NAME_FIELDS, resolveNames, SUBJECT_FIELDS } from './issue.js';
import { exportPrivateKey, samePublicKey } from './keys.js';
import { pkiStore } from './storage.js';
import { altNamesExtension, basicConstraints, signCsr, toPem } from './x509.js';

const GENERATE_FIELDS: Record<string, FieldSpec> = {
  type: { type: 'string', description: 'internal, exported, kms or existing' },
  ...NAME_FIELDS,
  ...SUBJECT_FIELDS,
  ...KEY_FIELDS,
  add_basic_constraints: { type: 'bool', default: false, description: 'ask for CA:TRUE in the CSR' },
};

/** A CSR for an intermediate CA; its key is stored at once (a new key entry unless `existing`). */
async function generateIntermediate(engine: PkiEngine, request: HandlerRequest): Promise<LogicalResponse> {
  const type = generationType(request);
  checkFormat(request.fields);
  const store = pkiStore(request);
  const role = caRoleFromRequest(request.fields, false);
  const names = resolveNames(role, request.fields, undefined);
  const key = await caKeyFor(engine, request, store, type);
  const constraints = request.fields.get<boolean>('add_basic_constraints') ? basicConstraints(true) : undefined;
  const csrDer = await signCsr(names.subject, [altNamesExtension(names.altNames), constraints], key.signer);
  if (key.isNew) engine.commit(request.mount.uuid, (tx) => writeKey(tx, key.entry));
  const format = request.fields.get<string>('format');
  const csrText = format === 'der' ? csrDer.toString('base64') : toPem(csrDer, 'CERTIFICATE REQUEST');
  const data: Record<string, unknown> = { csr: csrText, key_id: key.entry.id };
  if (type === 'exported' && key.local) {
    const keyText = exportPrivateKey(key.local, request.fields.get<string>('private_key_format'), format);
    data.private_key = keyText;
    data.private_key_type = key.local.asymmetricKeyType === 'ec' ? 'ec' : 'rsa';
    if (format === 'pem_bundle') data.csr = `${keyText}\n${csrText}`;
  }
  return { data };
}

/**
 * Installs the signed intermediate: the first certificate must carry the public half of a key
 * this mount holds; it and the chain above it become issuers, as an import of them would.
 */
async function setSigned(engine: PkiEngine, request: HandlerRequest): Promise<LogicalResponse> {
  const text = request.fields.get<string>('certificate');
  const [pem] = certificatesIn(text);
  if (!pem) throw badRequest('no certificate provided in the "certificate" parameter');
  const store = pkiStore(request);
  const keys = store.keys();
  if (keys.length === 0) throw badRequest('could not find any existing entry with a private key');
  const publicKey = new X509Certificate(pem).publicKey;
  // The stored keys, local or in a managed key's backend, checked through their public halves.
  if (!keys.some((entry) => samePublicKey(publicKey, signerFor(engine, entry, request.mount.uuid).publicKey)))
    throw badRequest('the given certificate does not match the stored private key');
  if (!isCaCertificate(pem)) throw badRequest('the given certificate is not marked for CA use and cannot be used with this backend');
  return { data: { ...(await importBundle(engine, request, text, false)) } };
}

/** Intermediate CAs: a key and CSR here, the certificate signed elsewhere and set back. */
export function intermediatePaths(engine: PkiEngine): PathSpec[] {
  const generate = (request: HandlerRequest) => engine.exclusive(request.mount.uuid, () => generateIntermediate(engine, request));
  const install = (request: HandlerRequest) => engine.exclusive(request.mount.uuid, () => setSigned(engine, request));
  return [
    ...['intermediate/generate/:type', 'issuers/generate/intermediate/:type'].map((pattern): PathSpec => ({
      pattern,
      summary: 'Generate an intermediate CA key and its CSR.',
      fields: GENERATE_FIELDS,
      operations: { update: generate },
    })),
    {
      pattern: 'intermediate/set-signed',
      summary: 'Install the signed intermediate certificate for a key this mount holds.',
      fields: { certificate: { type: 'string', default: '', description: 'PEM certificate, then optional CA certificates above it' } },
      operations: { update: install },
    },
  ];
}
