import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import * as asn from '@peculiar/asn1-x509';
import { badRequest } from '../../../core/errors.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import type { MountStorage } from '../../storage/mount-storage.js';
import {
  buildCrl,
  certificateExtension,
  describeCa,
  hasCaKey,
  loadCa,
  parseCertificate,
  readBundle,
  signerFor,
  storeCert,
  type CaBundle,
  type LoadedCa,
} from './ca-store.js';
import { certificateData, type PkiEngine } from './engine.js';
import {
  caExtensions,
  caRoleFromRequest,
  checkFormat,
  childPathLength,
  csrKeyUsage,
  NAME_FIELDS,
  resolveNames,
  resolveValidity,
  SUBJECT_FIELDS,
} from './issue.js';
import { exportPrivateKey, resolveKeySpec, samePublicKey, storeKey, type KeyType } from './keys.js';
import { ManagedCaSigner, managedKeyReference } from './managed-signer.js';
import { csrOrThrow } from './paths-certs.js';
import { LocalSigner, type CaSigner } from './signer.js';
import {
  altNamesExtension,
  authorityKeyId,
  basicConstraints,
  keyIdentifier,
  pemBlocks,
  randomSerial,
  signCertificate,
  signCsr,
  signTbsCertificate,
  toPem,
} from './x509.js';

const GENERATE_TYPES = ['internal', 'exported', 'kms'];

const KEY_FIELDS: Record<string, FieldSpec> = {
  key_type: { type: 'string', default: 'rsa', description: 'rsa or ec' },
  key_bits: { type: 'int', default: 0, description: 'key size (0: 2048 for rsa, 256 for ec)' },
};

const KMS_FIELDS: Record<string, FieldSpec> = {
  managed_key_name: { type: 'string', default: '', description: 'kms: the managed key that holds the CA key, by name' },
  managed_key_id: { type: 'string', default: '', description: 'kms: the managed key that holds the CA key, by UUID' },
};

const CA_FIELDS: Record<string, FieldSpec> = {
  ...NAME_FIELDS,
  ...SUBJECT_FIELDS,
  max_path_length: { type: 'int', default: -1, description: '-1: no limit (or one less than the signer)' },
  permitted_dns_domains: { type: 'commaStringSlice', default: [], description: 'name constraints (DNS)' },
};

type GenerationType = 'internal' | 'exported' | 'kms';

/** `internal`, `exported` or `kms` (the key stays in a managed key's backend), or the real service's error. */
function generationType(request: HandlerRequest): GenerationType {
  const type = request.params.type as string;
  if (!GENERATE_TYPES.includes(type)) throw badRequest('the "exported" path parameter must be "internal", "exported" or "kms"');
  return type as GenerationType;
}

/** A new CA key: its signer, and how the CA bundle stores it (local PKCS#8, or the managed key's reference). */
interface NewCaKey {
  signer: CaSigner;
  /** The local key; undefined for `kms`, whose key never leaves its backend. */
  local: KeyObject | undefined;
  stored: Pick<CaBundle, 'privateKey' | 'managedKey'>;
}

/** `kms`: the managed key the request names, if this mount may use it; otherwise a pool key of key_type/key_bits. */
async function newCaKey(engine: PkiEngine, request: HandlerRequest, type: GenerationType): Promise<NewCaKey> {
  if (type === 'kms') {
    const signer = await ManagedCaSigner.open(engine.context.managedKeys, managedKeyReference(request.fields), request.mount);
    return { signer, local: undefined, stored: { privateKey: null, managedKey: signer.ref } };
  }
  const spec = resolveKeySpec(request.fields.get<string>('key_type'), request.fields.get<number>('key_bits'));
  if (typeof spec === 'string') throw badRequest(spec);
  const key = await engine.keys.take({ type: spec.type as KeyType, bits: spec.bits });
  return { signer: new LocalSigner(key), local: key, stored: { privateKey: storeKey(key) } };
}

/** Installs a CA (certificate + key or managed key reference + chain) and its first CRL in one transaction. */
async function installCa(
  engine: PkiEngine,
  request: HandlerRequest,
  ca: LoadedCa,
  key: Pick<CaBundle, 'privateKey' | 'managedKey'>,
  listed: boolean,
  extra?: (storage: MountStorage) => void,
): Promise<void> {
  const crl = await buildCrl(request.storage, ca, engine.now());
  engine.commit(request.mount.uuid, (storage) => {
    storage.put('config/ca_bundle', { certificate: ca.certificatePem, ...key, chain: ca.chain } satisfies CaBundle);
    storage.put('ca', ca.certificatePem);
    if (listed) storeCert(storage, ca.serial, ca.certificatePem, ca.notAfter.getTime());
    storage.put('crl', crl);
    extra?.(storage);
  });
}

function isCaCertificate(pem: string): boolean {
  return certificateExtension(parseCertificate(pem), asn.id_ce_basicConstraints, asn.BasicConstraints)?.cA === true;
}

/** The certificates in a PEM text; one that does not parse is the caller's error, never a 500. */
function certificatesIn(text: string): string[] {
  return pemBlocks(text)
    .filter((block) => block.label === 'CERTIFICATE')
    .map((block) => {
      const pem = toPem(block.der, 'CERTIFICATE');
      try {
        new X509Certificate(pem);
        parseCertificate(pem);
      } catch {
        throw badRequest('a certificate in the input could not be parsed');
      }
      return pem;
    });
}

/** Root and intermediate CA operations, and uploading a CA. */
export function caPaths(engine: PkiEngine): PathSpec[] {
  return [
    {
      pattern: 'root/generate/:type',
      summary: 'Generate a self-signed root CA.',
      fields: { type: { type: 'string', description: 'internal, exported or kms' }, ...CA_FIELDS, ...KEY_FIELDS, ...KMS_FIELDS },
      operations: {
        update: (request) =>
          engine.exclusive(request.mount.uuid, async (): Promise<LogicalResponse> => {
            if (readBundle(request.storage)?.certificate) {
              return {
                data: null,
                warnings: [
                  'Refusing to generate a root certificate over an existing root certificate. ' +
                    'If you really want to destroy the original root certificate, ' +
                    `please issue a delete against ${request.mount.path} root.`,
                ],
              };
            }
            const type = generationType(request);
            checkFormat(request.fields);
            const role = caRoleFromRequest(request.fields, false);
            const names = resolveNames(role, request.fields, undefined);
            const now = engine.now();
            const validity = resolveValidity(role, request.fields, request.mount, undefined, now);
            const maxPath = request.fields.get<number>('max_path_length');
            const key = await newCaKey(engine, request, type);
            const { signer } = key;
            const keyId = keyIdentifier(signer.publicKey);
            const serial = randomSerial();
            const extensions = caExtensions({
              names: names.altNames,
              publicKey: signer.publicKey,
              issuerKeyId: keyId,
              pathLength: maxPath >= 0 ? maxPath : undefined,
              permittedDnsDomains: request.fields.get<string[]>('permitted_dns_domains'),
              storage: request.storage,
            });
            const der = await signCertificate(
              {
                serial,
                subject: names.subject,
                issuer: names.subject,
                notBefore: validity.notBefore,
                notAfter: validity.notAfter,
                publicKey: signer.publicKey,
                extensions,
              },
              signer,
            );
            const ca = describeCa(toPem(der, 'CERTIFICATE'), [], signer);
            await installCa(engine, request, ca, key.stored, true);
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
            const warnings =
              maxPath === 0
                ? [
                    'Max path length of the generated certificate is zero. ' +
                      'This certificate cannot be used to issue intermediate CA certificates.',
                  ]
                : [];
            return { data, ...(warnings.length > 0 ? { warnings } : {}) };
          }),
      },
    },
    {
      pattern: 'root',
      summary: 'Delete the CA key (the CA certificate stays readable).',
      sudo: true,
      operations: {
        delete: (request) => {
          request.storage.delete('config/ca_bundle');
          return undefined;
        },
      },
    },
    {
      pattern: 'root/sign-intermediate',
      summary: 'Sign an intermediate CA from its CSR.',
      fields: {
        ...CA_FIELDS,
        csr: { type: 'string', default: '', description: 'PEM CSR' },
        use_csr_values: { type: 'bool', default: false, description: 'take subject and SANs from the CSR' },
      },
      operations: {
        update: async (request) => {
          checkFormat(request.fields);
          const ca = loadCa(engine, { storage: request.storage, mountUuid: request.mount.uuid });
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
            storage: request.storage,
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
          storeCert(request.storage, data.serial_number as string, toPem(der, 'CERTIFICATE'), validity.notAfter.getTime());
          return { data, ...(validity.warnings.length > 0 ? { warnings: validity.warnings } : {}) };
        },
      },
    },
    {
      pattern: 'root/sign-self-issued',
      summary: 'Re-sign a self-issued CA certificate with this CA.',
      sudo: true,
      fields: { certificate: { type: 'string', default: '', description: 'PEM self-issued CA certificate' } },
      operations: {
        update: async (request) => {
          const pem = certificatesIn(request.fields.get<string>('certificate'))[0];
          if (!pem) throw badRequest('no certificate found in input');
          const certificate = parseCertificate(pem);
          const tbs = certificate.tbsCertificate;
          if (!Buffer.from(AsnConvert.serialize(tbs.issuer)).equals(Buffer.from(AsnConvert.serialize(tbs.subject))))
            throw badRequest('given certificate is not self-issued');
          if (!isCaCertificate(pem)) throw badRequest('given certificate is not a CA certificate');
          const ca = loadCa(engine, { storage: request.storage, mountUuid: request.mount.uuid });
          tbs.issuer = ca.subject;
          const others = (tbs.extensions ?? []).filter((item) => item.extnID !== asn.id_ce_authorityKeyIdentifier);
          tbs.extensions = new asn.Extensions([...others, authorityKeyId(ca.keyId)]);
          const der = await signTbsCertificate(tbs, ca.signer);
          return { data: { certificate: toPem(der, 'CERTIFICATE'), issuing_ca: ca.certificatePem } };
        },
      },
    },
    {
      pattern: 'intermediate/generate/:type',
      summary: 'Generate an intermediate CA key and its CSR.',
      fields: {
        type: { type: 'string', description: 'internal, exported or kms' },
        ...CA_FIELDS,
        ...KEY_FIELDS,
        ...KMS_FIELDS,
        add_basic_constraints: { type: 'bool', default: false, description: 'ask for CA:TRUE in the CSR' },
      },
      operations: {
        update: (request) =>
          engine.exclusive(request.mount.uuid, async (): Promise<LogicalResponse> => {
            const type = generationType(request);
            checkFormat(request.fields);
            const role = caRoleFromRequest(request.fields, false);
            const names = resolveNames(role, request.fields, undefined);
            const key = await newCaKey(engine, request, type);
            const constraints = request.fields.get<boolean>('add_basic_constraints') ? basicConstraints(true) : undefined;
            const requested = [altNamesExtension(names.altNames), constraints];
            const csrDer = await signCsr(names.subject, requested, key.signer);
            // A new key replaces the CA bundle (no certificate until set-signed), as upstream.
            const bundle: CaBundle = { certificate: null, ...key.stored, chain: [] };
            engine.commit(request.mount.uuid, (storage) => storage.put('config/ca_bundle', bundle));
            const format = request.fields.get<string>('format');
            const csrText = format === 'der' ? csrDer.toString('base64') : toPem(csrDer, 'CERTIFICATE REQUEST');
            const data: Record<string, unknown> = { csr: csrText };
            if (type === 'exported' && key.local) {
              const keyText = exportPrivateKey(key.local, request.fields.get<string>('private_key_format'), format);
              data.private_key = keyText;
              data.private_key_type = key.local.asymmetricKeyType === 'ec' ? 'ec' : 'rsa';
              if (format === 'pem_bundle') data.csr = `${keyText}\n${csrText}`;
            }
            return { data };
          }),
      },
    },
    {
      pattern: 'intermediate/set-signed',
      summary: 'Install the signed intermediate certificate for the generated key.',
      fields: { certificate: { type: 'string', default: '', description: 'PEM certificate, then optional CA certificates above it' } },
      operations: {
        update: (request) =>
          engine.exclusive(request.mount.uuid, async () => {
            const certificates = certificatesIn(request.fields.get<string>('certificate'));
            const [pem, ...chain] = certificates;
            if (!pem) throw badRequest('no certificate provided in the "certificate" parameter');
            const bundle = readBundle(request.storage);
            if (!bundle || !hasCaKey(bundle)) throw badRequest('could not find any existing entry with a private key');
            // The stored key, local or in a managed key's backend, checked through its public half.
            const signer = signerFor(engine, bundle, request.mount.uuid);
            if (!samePublicKey(new X509Certificate(pem).publicKey, signer.publicKey)) {
              throw badRequest('the given certificate does not match the stored private key');
            }
            if (!isCaCertificate(pem))
              throw badRequest('the given certificate is not marked for CA use and cannot be used with this backend');
            const key = { privateKey: bundle.privateKey, managedKey: bundle.managedKey };
            await installCa(engine, request, describeCa(pem, chain, signer), key, true);
            return undefined;
          }),
      },
    },
    {
      pattern: 'config/ca',
      summary: 'Upload a CA: private key, certificate and optional chain in one PEM bundle.',
      fields: { pem_bundle: { type: 'string', default: '', description: 'PEM key + certificate (+ chain)' } },
      operations: {
        update: (request) =>
          engine.exclusive(request.mount.uuid, async () => {
            const text = request.fields.get<string>('pem_bundle');
            if (text.trim() === '') throw badRequest("'pem_bundle' was empty");
            const keyBlock = pemBlocks(text).find((block) => /PRIVATE KEY$/.test(block.label));
            if (!keyBlock) throw badRequest('private key not found in the PEM bundle');
            const certificates = certificatesIn(text);
            if (certificates.length === 0) throw badRequest('no certificate found in the PEM bundle');
            let key: KeyObject;
            try {
              key = createPrivateKey(toPem(keyBlock.der, keyBlock.label));
            } catch {
              throw badRequest('private key in the PEM bundle could not be parsed');
            }
            const pem = certificates.find((candidate) => new X509Certificate(candidate).checkPrivateKey(key));
            if (!pem) throw badRequest('the private key in the PEM bundle does not match any certificate in it');
            if (!isCaCertificate(pem))
              throw badRequest('the given certificate is not marked for CA use and cannot be used with this backend');
            // Uploaded CAs are not listed under certs/, as upstream.
            const ca = describeCa(
              pem,
              certificates.filter((item) => item !== pem),
              new LocalSigner(key),
            );
            await installCa(engine, request, ca, { privateKey: storeKey(key) }, false);
            return undefined;
          }),
      },
    },
  ];
}
