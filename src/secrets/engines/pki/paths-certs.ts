import { createPublicKey, type KeyObject } from 'node:crypto';
import * as asn from '@peculiar/asn1-x509';
import { badRequest, notFound } from '../../../core/errors.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { caChain, crlPem, loadCa, storeCert, type CrlRecord, type RevocationRecord, type StoredCert } from './ca-store.js';
import { certificateData, noContentRaw, raw, type PkiEngine } from './engine.js';
import { checkFormat, extKeyUsageOids, keyUsageFlags, leafExtensions, NAME_FIELDS, resolveNames, resolveValidity } from './issue.js';
import { describeKey, type KeyType } from './keys.js';
import { readRole } from './paths-config.js';
import { revokeSerial, rotateCrl } from './revocation.js';
import { withDefaults, type Role } from './role.js';
import {
  authorityKeyId,
  colonFromStorage,
  extKeyUsage,
  keyUsage,
  parseCsr,
  randomSerial,
  signCertificate,
  storageSerial,
  subjectKeyId,
  keyIdentifier,
  toPem,
  type ParsedCsr,
} from './x509.js';

const CSR_FIELD: Record<string, FieldSpec> = { csr: { type: 'string', default: '', description: 'PEM certificate request' } };

function roleOrThrow(request: HandlerRequest): Role {
  const name = request.params.role as string;
  const role = readRole(request.storage, name);
  if (!role) throw badRequest(`unknown role: ${name}`);
  return role;
}

export function csrOrThrow(request: HandlerRequest): ParsedCsr {
  const text = request.fields.get<string>('csr');
  if (text === '') throw badRequest('"csr" is empty');
  const csr = parseCsr(text);
  if (typeof csr === 'string') throw badRequest(csr);
  return csr;
}

/** The CSR's key must fit the role: type, and at least the role's size (RSA never below 2048). */
function checkCsrKey(role: Role, key: KeyObject): void {
  const { type, bits } = describeKey(key);
  if (role.key_type !== 'any' && type !== role.key_type) throw badRequest(`role requires keys of type ${role.key_type}`);
  if (type === 'rsa' && bits < 2048) throw badRequest('RSA keys < 2048 bits are unsafe and not supported');
  if (role.key_type !== 'any' && bits < role.key_bits)
    throw badRequest(`role requires a minimum of a ${role.key_bits}-bit key, but CSR's key is ${bits} bits`);
}

interface LeafInput {
  role: Role;
  leasePath: string;
  csr?: ParsedCsr;
  /** sign-verbatim: subject and requested extensions come from the CSR as they are. */
  verbatim?: { keyUsage: string[]; extKeyUsage: string[]; extKeyUsageOids: string[] };
}

/** issue, sign and sign-verbatim: check the request against the role, sign, store, lease. */
async function issueLeaf(engine: PkiEngine, request: HandlerRequest, input: LeafInput): Promise<LogicalResponse> {
  const { role } = input;
  checkFormat(request.fields);
  const ca = loadCa(request.storage);
  if (!input.csr && role.key_type === 'any') throw badRequest('role key type "any" not allowed for issuing certificates, only signing');
  if (input.csr) checkCsrKey(role, input.csr.publicKey);
  const names = resolveNames(role, request.fields, input.verbatim ? undefined : input.csr);
  const now = engine.now();
  const validity = resolveValidity(role, request.fields, request.mount, ca, now);

  const privateKey = input.csr ? undefined : await engine.keys.take({ type: role.key_type as KeyType, bits: role.key_bits });
  const publicKey = input.csr?.publicKey ?? createPublicKey(privateKey as KeyObject);
  const serial = randomSerial();
  let subject = names.subject;
  let extensions = leafExtensions(role, names.altNames, publicKey, ca, request.storage);
  if (input.verbatim && input.csr) {
    // Verbatim: the CSR's subject and extensions, plus the usages the caller asked for.
    const { verbatim, csr } = input;
    subject = csr.subject;
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
    extensions = [
      ...csr.extensions.filter((item) => !replaced.has(item.extnID)),
      flags === 0 ? undefined : keyUsage(flags),
      ekus.length === 0 ? undefined : extKeyUsage(ekus),
      subjectKeyId(keyIdentifier(publicKey)),
      authorityKeyId(ca.keyId),
    ];
  }
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
  if (!role.no_store) storeCert(request.storage, serialText, toPem(der, 'CERTIFICATE'), validity.notAfter.getTime());
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

/** `GET cert/:serial` and the keywords the real service accepts in its place. */
function readCertificate(request: HandlerRequest, serialParam: string): { pem: string; revocation?: RevocationRecord } | undefined {
  if (serialParam === 'ca') {
    const pem = caChain(request.storage)[0];
    return pem ? { pem } : undefined;
  }
  if (serialParam === 'crl') {
    const crl = request.storage.get<CrlRecord>('crl');
    return crl ? { pem: crlPem(crl) } : undefined;
  }
  const serial = storageSerial(serialParam);
  const stored = request.storage.get<StoredCert>(`certs/${serial}`);
  if (!stored) return undefined;
  return { pem: stored.certificate, revocation: request.storage.get<RevocationRecord>(`revoked/${serial}`) };
}

const PEM_CHAIN = 'application/pem-certificate-chain';
const PKIX_CERT = 'application/pkix-cert';
const pemToDer = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');

/** Issue, sign, revoke, and the reads of certificates, CA and CRL. */
export function certificatePaths(engine: PkiEngine): PathSpec[] {
  return [
    {
      pattern: 'issue/:role',
      summary: 'Issue a certificate and its key under a role.',
      fields: { role: { type: 'string', description: 'role name' }, ...NAME_FIELDS },
      operations: {
        update: async (request) => issueLeaf(engine, request, { role: roleOrThrow(request), leasePath: `issue/${request.params.role}` }),
      },
    },
    {
      pattern: 'sign/:role',
      summary: 'Sign a CSR under a role.',
      fields: { role: { type: 'string', description: 'role name' }, ...NAME_FIELDS, ...CSR_FIELD },
      operations: {
        update: async (request) => {
          const role = roleOrThrow(request);
          return issueLeaf(engine, request, { role, csr: csrOrThrow(request), leasePath: `sign/${request.params.role}` });
        },
      },
    },
    ...['sign-verbatim', 'sign-verbatim/:role'].map((pattern): PathSpec => ({
      pattern,
      summary: 'Sign a CSR as it is: its subject and extensions, with the requested usages.',
      fields: {
        role: { type: 'string', description: 'role whose TTLs and storage settings apply' },
        ...NAME_FIELDS,
        ...CSR_FIELD,
        key_usage: {
          type: 'commaStringSlice',
          default: ['DigitalSignature', 'KeyAgreement', 'KeyEncipherment'],
          description: 'key usages',
        },
        ext_key_usage: { type: 'commaStringSlice', default: [], description: 'extended key usages' },
        ext_key_usage_oids: { type: 'commaStringSlice', default: [], description: 'extended key usage OIDs' },
      },
      operations: {
        update: async (request) => {
          const named = request.params.role ? roleOrThrow(request) : undefined;
          const role = withDefaults({
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
          const csr = csrOrThrow(request);
          return issueLeaf(engine, request, {
            role,
            csr,
            leasePath: request.path,
            verbatim: {
              keyUsage: request.fields.get('key_usage'),
              extKeyUsage: request.fields.get('ext_key_usage'),
              extKeyUsageOids: request.fields.get('ext_key_usage_oids'),
            },
          });
        },
      },
    })),
    {
      pattern: 'revoke',
      summary: 'Revoke a certificate by serial and rebuild the CRL.',
      fields: { serial_number: { type: 'string', default: '', description: 'hyphen- or colon-separated serial' } },
      operations: {
        update: (request) => revokeSerial(engine, request.storage, request.mount.uuid, request.fields.get<string>('serial_number')),
      },
    },
    {
      pattern: 'certs',
      summary: 'List stored certificates by serial.',
      operations: {
        list: (request) => {
          const keys = request.storage.list('certs/').map(colonFromStorage);
          if (keys.length === 0) throw notFound();
          return { data: { keys } };
        },
      },
    },
    {
      pattern: 'cert/:serial/raw',
      summary: 'A certificate as DER.',
      unauthenticated: ['read'],
      operations: {
        read: (request) => {
          const found = readCertificate(request, request.params.serial as string);
          if (!found) throw notFound();
          return raw(request.params.serial === 'crl' ? 'application/pkix-crl' : PKIX_CERT, pemToDer(found.pem));
        },
      },
    },
    {
      pattern: 'cert/:serial/raw/pem',
      summary: 'A certificate as PEM.',
      unauthenticated: ['read'],
      operations: {
        read: (request) => {
          const found = readCertificate(request, request.params.serial as string);
          if (!found) throw notFound();
          return raw(PEM_CHAIN, `${found.pem}\n`);
        },
      },
    },
    {
      pattern: 'cert/:serial',
      summary: 'A certificate by serial; also ca, crl and ca_chain.',
      unauthenticated: ['read'],
      operations: {
        read: (request) => {
          const serial = request.params.serial as string;
          if (serial === 'ca_chain') {
            const chain = caChain(request.storage);
            if (chain.length === 0) throw notFound();
            return { data: { certificate: chain.join('\n'), ca_chain: chain.join('\n'), revocation_time: 0, revocation_time_rfc3339: '' } };
          }
          const found = readCertificate(request, serial);
          if (!found) throw notFound();
          return {
            data: {
              certificate: found.pem,
              revocation_time: found.revocation?.revocation_time ?? 0,
              revocation_time_rfc3339: found.revocation?.revocation_time_rfc3339 ?? '',
            },
          };
        },
      },
    },
    {
      pattern: 'ca/pem',
      summary: 'The CA certificate as PEM (bare body).',
      unauthenticated: ['read'],
      operations: {
        read: (request) => {
          const pem = caChain(request.storage)[0];
          return pem ? raw(PEM_CHAIN, `${pem}\n`) : noContentRaw;
        },
      },
    },
    {
      pattern: 'ca',
      summary: 'The CA certificate as DER (bare body).',
      unauthenticated: ['read'],
      operations: {
        read: (request) => {
          const pem = caChain(request.storage)[0];
          return pem ? raw(PKIX_CERT, pemToDer(pem)) : noContentRaw;
        },
      },
    },
    {
      pattern: 'ca_chain',
      summary: 'The CA chain as PEM, the CA first (bare body).',
      unauthenticated: ['read'],
      operations: {
        read: (request) => {
          const chain = caChain(request.storage);
          return chain.length > 0 ? raw(PKIX_CERT, `${chain.join('\n')}\n`) : noContentRaw;
        },
      },
    },
    {
      pattern: 'crl/pem',
      summary: 'The CRL as PEM (bare body).',
      unauthenticated: ['read'],
      operations: {
        read: (request) => {
          const crl = request.storage.get<CrlRecord>('crl');
          return crl ? raw('application/x-pem-file', `${crlPem(crl)}\n`) : noContentRaw;
        },
      },
    },
    {
      pattern: 'crl/rotate',
      summary: 'Rebuild the CRL now.',
      operations: {
        read: async (request) => {
          await rotateCrl(engine, request);
          return { data: { success: true } };
        },
      },
    },
    {
      pattern: 'crl',
      summary: 'The CRL as DER (bare body).',
      unauthenticated: ['read'],
      operations: {
        read: (request) => {
          const crl = request.storage.get<CrlRecord>('crl');
          return crl ? raw('application/pkix-crl', Buffer.from(crl.der, 'base64')) : noContentRaw;
        },
      },
    },
  ];
}
