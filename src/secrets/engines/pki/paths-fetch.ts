import { notFound } from '../../../core/errors.js';
import type { HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { crlPem, defaultChain } from './ca.js';
import { noContentRaw, raw } from './engine.js';
import { pkiStore, type PkiStorage, type RevocationRecord } from './storage.js';
import { colonFromStorage } from './x509.js';

const PEM_CHAIN = 'application/pem-certificate-chain';
const PKIX_CERT = 'application/pkix-cert';
const PKIX_CRL = 'application/pkix-crl';
/** The format a fetch path ends in (`…/pem`, `…/der`, `…/json`). */
const lastSegment = (request: HandlerRequest) => request.path.replace(/\/$/, '').split('/').pop();
const pemToDer = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');

/** The default issuer's CRL (the single-issuer paths read it). */
const defaultCrl = (store: PkiStorage) => {
  const id = store.issuersConfig().default;
  return id === '' ? undefined : store.crl(id);
};

/** `GET cert/:serial` and the keywords the real service accepts in its place. */
function readCertificate(request: HandlerRequest, serialParam: string): { pem: string; revocation?: RevocationRecord } | undefined {
  const store = pkiStore(request);
  if (serialParam === 'ca') {
    const pem = defaultChain(store)[0];
    return pem ? { pem } : undefined;
  }
  if (serialParam === 'crl') {
    const crl = defaultCrl(store);
    return crl ? { pem: crlPem(crl) } : undefined;
  }
  const stored = store.cert(serialParam);
  if (!stored) return undefined;
  return { pem: stored.certificate, revocation: store.revocation(serialParam) };
}

const listCerts = (request: HandlerRequest): LogicalResponse => {
  const keys = request.storage.list('certs/').map(colonFromStorage);
  if (keys.length === 0) throw notFound();
  return { data: { keys } };
};

const readCertDer = (request: HandlerRequest): LogicalResponse => {
  const found = readCertificate(request, request.params.serial as string);
  if (!found) throw notFound();
  return raw(request.params.serial === 'crl' ? PKIX_CRL : PKIX_CERT, pemToDer(found.pem));
};

const readCertPem = (request: HandlerRequest): LogicalResponse => {
  const found = readCertificate(request, request.params.serial as string);
  if (!found) throw notFound();
  return raw(PEM_CHAIN, `${found.pem}\n`);
};

const readCertJson = (request: HandlerRequest): LogicalResponse => {
  const serial = request.params.serial as string;
  if (serial === 'ca_chain') {
    const chain = defaultChain(pkiStore(request));
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
};

const caPem = (request: HandlerRequest): LogicalResponse => {
  const pem = defaultChain(pkiStore(request))[0];
  return pem ? raw(PEM_CHAIN, `${pem}\n`) : noContentRaw;
};

const caDer = (request: HandlerRequest): LogicalResponse => {
  const pem = defaultChain(pkiStore(request))[0];
  return pem ? raw(PKIX_CERT, pemToDer(pem)) : noContentRaw;
};

const caChainPem = (request: HandlerRequest): LogicalResponse => {
  const chain = defaultChain(pkiStore(request));
  return chain.length > 0 ? raw(PKIX_CERT, `${chain.join('\n')}\n`) : noContentRaw;
};

const crlPemBody = (request: HandlerRequest): LogicalResponse => {
  const crl = defaultCrl(pkiStore(request));
  return crl ? raw('application/x-pem-file', `${crlPem(crl)}\n`) : noContentRaw;
};

const crlDer = (request: HandlerRequest): LogicalResponse => {
  const crl = defaultCrl(pkiStore(request));
  return crl ? raw(PKIX_CRL, Buffer.from(crl.der, 'base64')) : noContentRaw;
};

/** `issuer/:issuer_ref/json|der|pem`: one issuer's certificate, bare or with its chain. */
const readIssuerCertificate = (request: HandlerRequest): LogicalResponse => {
  const issuer = pkiStore(request).resolveIssuer(request.params.issuer_ref as string);
  switch (lastSegment(request)) {
    case 'pem':
      return raw(PEM_CHAIN, issuer.certificate);
    case 'der':
      return raw(PKIX_CERT, pemToDer(issuer.certificate));
    default:
      return { data: { certificate: issuer.certificate, ca_chain: issuer.ca_chain, issuer_id: issuer.id, issuer_name: issuer.name } };
  }
};

/** `issuer/:issuer_ref/crl[/pem|/der]`: that issuer's CRL (JSON with PEM, bare PEM, or DER). */
const readIssuerCrl = (request: HandlerRequest): LogicalResponse => {
  const store = pkiStore(request);
  const issuer = store.resolveIssuer(request.params.issuer_ref as string);
  const crl = store.crl(issuer.id);
  const format = lastSegment(request);
  if (format === 'der') return crl ? raw(PKIX_CRL, Buffer.from(crl.der, 'base64')) : noContentRaw;
  const pem = crl ? `${crlPem(crl)}\n` : '';
  if (format === 'pem') return pem === '' ? noContentRaw : raw('application/x-pem-file', pem);
  return { data: { crl: pem } };
};

/** Unauthenticated reads: certificates by serial, the default issuer's CA, chain and CRL, and each issuer's. */
export function fetchPaths(): PathSpec[] {
  const open = (pattern: string, summary: string, read: PathSpec['operations']['read']): PathSpec => ({
    pattern,
    summary,
    unauthenticated: ['read'],
    ...(pattern.startsWith('issuer/') ? { fields: { issuer_ref: { type: 'string', description: 'default, an issuer id or name' } } } : {}),
    operations: { read },
  });
  return [
    { pattern: 'certs', summary: 'List stored certificates by serial.', operations: { list: listCerts } },
    open('cert/:serial/raw', 'A certificate as DER.', readCertDer),
    open('cert/:serial/raw/pem', 'A certificate as PEM.', readCertPem),
    open('cert/:serial', 'A certificate by serial; also ca, crl and ca_chain.', readCertJson),
    open('ca/pem', 'The default issuer as PEM (bare body).', caPem),
    open('ca', 'The default issuer as DER (bare body).', caDer),
    open('ca_chain', "The default issuer's chain as PEM, the CA first (bare body).", caChainPem),
    open('crl/pem', "The default issuer's CRL as PEM (bare body).", crlPemBody),
    open('crl', "The default issuer's CRL as DER (bare body).", crlDer),
    open('issuer/:issuer_ref/crl', "An issuer's CRL (JSON with the PEM).", readIssuerCrl),
    ...['pem', 'der'].map((format) => open(`issuer/:issuer_ref/crl/${format}`, `An issuer's CRL as ${format} (bare body).`, readIssuerCrl)),
    ...['json', 'der', 'pem'].map((format) =>
      open(`issuer/:issuer_ref/${format}`, `An issuer's certificate as ${format}.`, readIssuerCertificate),
    ),
  ];
}
