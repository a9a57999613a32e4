import { createHash, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { AsnConvert, AsnIntegerArrayBufferConverter, OctetString } from '@peculiar/asn1-schema';
import * as asn from '@peculiar/asn1-x509';
import { CertificationRequest, CertificationRequestInfo, Attributes } from '@peculiar/asn1-csr';
import { algorithmIdentifier, type CaSigner, type SignatureAlgorithm } from './signer.js';
import { bitString, sequence, spkiDer, subjectPublicKeyInfo, tagged } from './spki.js';

/** Subject fields, in the order Go's pkix.Name writes them (the real service's order). */
export interface SubjectFields {
  country?: string[];
  province?: string[];
  locality?: string[];
  streetAddress?: string[];
  postalCode?: string[];
  organization?: string[];
  ou?: string[];
  commonName?: string;
  serialNumber?: string;
}

const SUBJECT_OIDS: [keyof SubjectFields, string][] = [
  ['country', '2.5.4.6'],
  ['province', '2.5.4.8'],
  ['locality', '2.5.4.7'],
  ['streetAddress', '2.5.4.9'],
  ['postalCode', '2.5.4.17'],
  ['organization', '2.5.4.10'],
  ['ou', '2.5.4.11'],
  ['commonName', '2.5.4.3'],
  ['serialNumber', '2.5.4.5'],
];

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;

export function buildName(fields: SubjectFields): asn.Name {
  const rdns: asn.RelativeDistinguishedName[] = [];
  for (const [key, oid] of SUBJECT_OIDS) {
    const raw = fields[key];
    const values = raw === undefined ? [] : Array.isArray(raw) ? raw : raw === '' ? [] : [raw];
    for (const value of values) {
      const attribute = PRINTABLE.test(value)
        ? new asn.AttributeValue({ printableString: value })
        : new asn.AttributeValue({ utf8String: value });
      rdns.push(new asn.RelativeDistinguishedName([new asn.AttributeTypeAndValue({ type: oid, value: attribute })]));
    }
  }
  return new asn.Name(rdns);
}

/** The first value of `oid` in a name (a CSR's CN or serial number). */
export function nameValue(name: asn.Name, oid: string): string {
  for (const rdn of name) for (const item of rdn) if (item.type === oid) return item.value.toString();
  return '';
}

export const OID_CN = '2.5.4.3';
export const OID_SERIAL_NUMBER = '2.5.4.5';

/** 20 random bytes, high bit clear (positive) and first byte non-zero (so the DER is exactly 20). */
export function randomSerial(): Buffer {
  const bytes = randomBytes(20);
  bytes[0] = (bytes[0] as number) & 0x7f || 0x01;
  return bytes;
}

/** `39:dd:2e:…`: the form responses carry. */
export const colonSerial = (bytes: Uint8Array) =>
  Buffer.from(bytes)
    .toString('hex')
    .replace(/(..)(?!$)/g, '$1:');

/** A serial as Node's X509Certificate gives it (hex digits) in the colon form. */
export const serialHex = (hex: string) => colonSerial(Buffer.from(hex.length % 2 === 1 ? `0${hex}` : hex, 'hex'));

/** Hyphen or colon separated, any case → `39-dd-2e-…`, the storage form. */
export const storageSerial = (serial: string) => serial.trim().toLowerCase().replace(/:/g, '-');
export const colonFromStorage = (serial: string) => serial.replace(/-/g, ':');

// ---------- extensions ----------

export function extension(oid: string, critical: boolean, value: unknown): asn.Extension {
  return new asn.Extension({ extnID: oid, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

/** RFC 5280 method 1: SHA-1 of the subjectPublicKey bits. */
export function keyIdentifier(publicKey: KeyObject): Buffer {
  const spki = publicKeyInfo(publicKey);
  return createHash('sha1').update(Buffer.from(spki.subjectPublicKey)).digest();
}

export interface AltNames {
  dns: string[];
  email: string[];
  ip: string[];
  uri: string[];
  other: { oid: string; value: string }[];
}

export const emptyAltNames = (): AltNames => ({ dns: [], email: [], ip: [], uri: [], other: [] });

function utf8String(value: string): ArrayBuffer {
  const bytes = Buffer.from(value, 'utf8');
  const header =
    bytes.length < 128
      ? Buffer.from([0x0c, bytes.length])
      : bytes.length < 256
        ? Buffer.from([0x0c, 0x81, bytes.length])
        : Buffer.from([0x0c, 0x82, bytes.length >> 8, bytes.length & 0xff]);
  const out = Buffer.concat([header, bytes]);
  return out.buffer.slice(out.byteOffset, out.byteOffset + out.length);
}

export function altNamesExtension(names: AltNames): asn.Extension | undefined {
  const general: asn.GeneralName[] = [
    ...names.dns.map((dNSName) => new asn.GeneralName({ dNSName })),
    ...names.email.map((rfc822Name) => new asn.GeneralName({ rfc822Name })),
    ...names.ip.map((iPAddress) => new asn.GeneralName({ iPAddress })),
    ...names.uri.map((uniformResourceIdentifier) => new asn.GeneralName({ uniformResourceIdentifier })),
    ...names.other.map(
      ({ oid, value }) => new asn.GeneralName({ otherName: new asn.OtherName({ typeId: oid, value: utf8String(value) }) }),
    ),
  ];
  if (general.length === 0) return undefined;
  const direct = names.ip.length === 0 && names.other.length === 0 ? textAltNames(names) : undefined;
  if (direct) return new asn.Extension({ extnID: asn.id_ce_subjectAltName, critical: false, extnValue: new OctetString(direct) });
  return extension(asn.id_ce_subjectAltName, false, new asn.SubjectAlternativeName(general));
}

/**
 * The SAN value when it holds only DNS names, emails and URIs (IA5 strings under implicit tags
 * [2], [1] and [6], in the library's order), encoded directly: the common leaf, and the schema
 * library takes ~55 µs for it. Anything non-ASCII takes the library's path.
 */
function textAltNames(names: AltNames): Buffer | undefined {
  const values = [...names.dns, ...names.email, ...names.uri];
  // ASCII exactly when its UTF-8 takes one byte per character.
  if (values.some((value) => Buffer.byteLength(value) !== value.length)) return undefined;
  const item = (tag: number) => (value: string) => tagged(tag, Buffer.from(value, 'latin1'));
  return sequence(...names.dns.map(item(0x82)), ...names.email.map(item(0x81)), ...names.uri.map(item(0x86)));
}

/** Names from a SAN extension (CSRs). */
export function readAltNames(extensions: asn.Extension[] | undefined): AltNames {
  const names = emptyAltNames();
  const san = extensions?.find((item) => item.extnID === asn.id_ce_subjectAltName);
  if (!san) return names;
  for (const name of AsnConvert.parse(san.extnValue.buffer, asn.SubjectAlternativeName)) {
    if (name.dNSName !== undefined) names.dns.push(name.dNSName);
    else if (name.rfc822Name !== undefined) names.email.push(name.rfc822Name);
    else if (name.iPAddress !== undefined) names.ip.push(name.iPAddress);
    else if (name.uniformResourceIdentifier !== undefined) names.uri.push(name.uniformResourceIdentifier);
  }
  return names;
}

export const basicConstraints = memo((ca: boolean, pathLength?: number) =>
  extension(
    asn.id_ce_basicConstraints,
    true,
    new asn.BasicConstraints(ca ? { cA: true, ...(pathLength === undefined ? {} : { pathLenConstraint: pathLength }) } : { cA: false }),
  ),
);

/**
 * Extensions that depend only on their few arguments, made once: every issue under a role asks
 * for the same usages, and encoding them through the schema library costs tens of µs each. The
 * objects are shared, so nothing may change one (nothing does: extensions are only encoded).
 */
function memo<A extends unknown[]>(make: (...args: A) => asn.Extension): (...args: A) => asn.Extension {
  const made = new Map<string, asn.Extension>();
  return (...args) => {
    const key = JSON.stringify(args);
    let found = made.get(key);
    if (!found) {
      if (made.size >= 256) made.clear();
      found = make(...args);
      made.set(key, found);
    }
    return found;
  };
}

export const keyUsage = memo((flags: number) => extension(asn.id_ce_keyUsage, true, new asn.KeyUsage(flags)));
export const extKeyUsage = memo((oids: string[]) => extension(asn.id_ce_extKeyUsage, false, new asn.ExtendedKeyUsage(oids)));
/** SubjectKeyIdentifier: an OCTET STRING of the identifier (encoded here: it is new for every key). */
export const subjectKeyId = (id: Buffer) =>
  new asn.Extension({ extnID: asn.id_ce_subjectKeyIdentifier, critical: false, extnValue: new OctetString(tagged(0x04, id)) });
/** AuthorityKeyIdentifier with only `[0] keyIdentifier`, encoded here. */
export const authorityKeyId = (id: Buffer) =>
  new asn.Extension({ extnID: asn.id_ce_authorityKeyIdentifier, critical: false, extnValue: new OctetString(sequence(tagged(0x80, id))) });

export function crlDistributionPoints(urls: string[]): asn.Extension | undefined {
  if (urls.length === 0) return undefined;
  const points = urls.map(
    (uniformResourceIdentifier) =>
      new asn.DistributionPoint({
        distributionPoint: new asn.DistributionPointName({ fullName: [new asn.GeneralName({ uniformResourceIdentifier })] }),
      }),
  );
  return extension(asn.id_ce_cRLDistributionPoints, false, new asn.CRLDistributionPoints(points));
}

const OCSP = '1.3.6.1.5.5.7.48.1';
const CA_ISSUERS = '1.3.6.1.5.5.7.48.2';

export function authorityInfoAccess(issuing: string[], ocsp: string[]): asn.Extension | undefined {
  const items = [
    ...ocsp.map(
      (uri) => new asn.AccessDescription({ accessMethod: OCSP, accessLocation: new asn.GeneralName({ uniformResourceIdentifier: uri }) }),
    ),
    ...issuing.map(
      (uri) =>
        new asn.AccessDescription({ accessMethod: CA_ISSUERS, accessLocation: new asn.GeneralName({ uniformResourceIdentifier: uri }) }),
    ),
  ];
  return items.length === 0 ? undefined : extension(asn.id_pe_authorityInfoAccess, false, new asn.AuthorityInfoAccessSyntax(items));
}

export function certificatePolicies(oids: string[]): asn.Extension | undefined {
  if (oids.length === 0) return undefined;
  return extension(
    asn.id_ce_certificatePolicies,
    false,
    new asn.CertificatePolicies(oids.map((policyIdentifier) => new asn.PolicyInformation({ policyIdentifier }))),
  );
}

export function nameConstraints(domains: string[]): asn.Extension | undefined {
  if (domains.length === 0) return undefined;
  const permitted = new asn.GeneralSubtrees(domains.map((dNSName) => new asn.GeneralSubtree({ base: new asn.GeneralName({ dNSName }) })));
  return extension(asn.id_ce_nameConstraints, true, new asn.NameConstraints({ permittedSubtrees: permitted }));
}

// ---------- certificates, CRLs, CSRs ----------

export interface CertificateTemplate {
  serial: Uint8Array;
  subject: asn.Name;
  issuer: asn.Name;
  notBefore: Date;
  notAfter: Date;
  publicKey: KeyObject;
  extensions: (asn.Extension | undefined)[];
}

const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer =>
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/**
 * SPKIs by key object: issuing asks twice for the same key (its identifier, then the certificate),
 * and parsing the DER is a good part of an issue's cost. Entries go with their key objects.
 */
const parsedSpkis = new WeakMap<KeyObject, asn.SubjectPublicKeyInfo>();

/** The SPKI of a key; a private key gives its public half. */
function publicKeyInfo(key: KeyObject): asn.SubjectPublicKeyInfo {
  let spki = parsedSpkis.get(key);
  if (!spki) {
    spki = subjectPublicKeyInfo(key.type === 'private' ? createPublicKey(key) : key);
    parsedSpkis.set(key, spki);
  }
  return spki;
}

/** Encoded SPKIs by key object (a new key's is needed for its identifier, then its certificate). */
const spkiDers = new WeakMap<KeyObject, Buffer>();

function publicKeyDer(key: KeyObject): Buffer {
  let der = spkiDers.get(key);
  if (!der) {
    der = spkiDer(key.type === 'private' ? createPublicKey(key) : key);
    spkiDers.set(key, der);
  }
  return der;
}

/** Algorithm identifiers as DER, by OID (a handful of them). */
const algorithmDers = new Map<string, Buffer>();

function algorithmDer(algorithm: SignatureAlgorithm): Buffer {
  let der = algorithmDers.get(algorithm.oid);
  if (!der) {
    der = serialize(algorithmIdentifier(algorithm));
    algorithmDers.set(algorithm.oid, der);
  }
  return der;
}

/** A Time as DER: UTCTime `YYMMDDHHMMSSZ` through 2049, GeneralizedTime `YYYYMMDDHHMMSSZ` after (whole seconds). */
function timeDer(date: Date): Buffer {
  const iso = date.toISOString();
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  const utc = date.getUTCFullYear() < 2050;
  return tagged(utc ? 0x17 : 0x18, Buffer.from(utc ? digits.slice(2) : digits, 'latin1'));
}

/** X.509 times: UTCTime through 2049, GeneralizedTime after, as RFC 5280 requires. */
function time(date: Date): asn.Time {
  return date.getUTCFullYear() < 2050 ? new asn.Time({ utcTime: date }) : new asn.Time({ generalTime: date });
}

/** Assembles and signs a v3 certificate; returns its DER. */
export async function signCertificate(template: CertificateTemplate, signer: CaSigner): Promise<Buffer> {
  const tbsDer = tbsCertificateDer(template, signer.algorithm);
  return certificateAround(tbsDer, signer.algorithm, await signer.sign(tbsDer));
}

/** `[0] { INTEGER 2 }`: the version of every certificate signed here. */
const VERSION_3 = Buffer.from('a003020102', 'hex');
const serialize = (value: unknown) => Buffer.from(AsnConvert.serialize(value));

/** Encoded names by object: a CA's subject is the issuer of every certificate it signs. */
const nameDers = new WeakMap<asn.Name, Buffer>();

function nameDer(name: asn.Name): Buffer {
  let der = nameDers.get(name);
  if (!der) {
    der = serialize(name);
    nameDers.set(name, der);
  }
  return der;
}

/** Encoded extensions by object (the shared ones above are encoded once). */
const extensionDers = new WeakMap<asn.Extension, Buffer>();

function extensionDer(item: asn.Extension): Buffer {
  let der = extensionDers.get(item);
  if (!der) {
    der = serialize(item);
    extensionDers.set(item, der);
  }
  return der;
}

/**
 * The TBSCertificate's DER, assembled from its members' encodings: serializing the whole
 * asn.TBSCertificate re-encodes the issuer's name and every member through the schema library on
 * each issue, the largest part of signing's CPU. The bytes are the library's (test/secrets/pki/der-encoding.test.ts).
 */
export function tbsCertificateDer(template: CertificateTemplate, algorithm: SignatureAlgorithm): Buffer {
  const extensions = template.extensions.filter((item): item is asn.Extension => item !== undefined);
  return sequence(
    VERSION_3,
    Buffer.from(AsnIntegerArrayBufferConverter.toASN(toArrayBuffer(template.serial)).toBER()),
    algorithmDer(algorithm),
    nameDer(template.issuer),
    sequence(timeDer(template.notBefore), timeDer(template.notAfter)),
    nameDer(template.subject),
    publicKeyDer(template.publicKey),
    ...(extensions.length > 0 ? [tagged(0xa3, sequence(...extensions.map(extensionDer)))] : []),
  );
}

/**
 * The Certificate SEQUENCE around signed TBS bytes, assembled directly: serializing an
 * asn.Certificate would encode the whole TBSCertificate a second time.
 */
const certificateAround = (tbsDer: Buffer, algorithm: SignatureAlgorithm, signature: Buffer) =>
  sequence(tbsDer, algorithmDer(algorithm), bitString(signature));

/** Signs an already-built TBSCertificate (also used to re-sign a self-issued CA). */
export async function signTbsCertificate(tbs: asn.TBSCertificate, signer: CaSigner): Promise<Buffer> {
  tbs.signature = algorithmIdentifier(signer.algorithm);
  const tbsDer = Buffer.from(AsnConvert.serialize(tbs));
  return certificateAround(tbsDer, signer.algorithm, await signer.sign(tbsDer));
}

export interface RevokedEntry {
  serial: Uint8Array;
  revokedAt: Date;
}

export interface CrlTemplate {
  issuer: asn.Name;
  thisUpdate: Date;
  nextUpdate: Date;
  number: number;
  authorityKeyId: Buffer;
  revoked: RevokedEntry[];
}

/** A v2 CRL with CRL number and AKI; entries carry no extensions (an empty set is not allowed). */
export async function signCrl(template: CrlTemplate, signer: CaSigner): Promise<Buffer> {
  const tbs = new asn.TBSCertList({
    version: asn.Version.v2,
    signature: algorithmIdentifier(signer.algorithm),
    issuer: template.issuer,
    thisUpdate: time(template.thisUpdate),
    nextUpdate: time(template.nextUpdate),
    crlExtensions: [
      new asn.Extension({
        extnID: asn.id_ce_authorityKeyIdentifier,
        critical: false,
        extnValue: new OctetString(
          AsnConvert.serialize(new asn.AuthorityKeyIdentifier({ keyIdentifier: new asn.KeyIdentifier(template.authorityKeyId) })),
        ),
      }),
      extension(asn.id_ce_cRLNumber, false, new asn.CRLNumber(template.number)),
    ],
  });
  if (template.revoked.length > 0) {
    tbs.revokedCertificates = template.revoked.map(
      (entry) => new asn.RevokedCertificate({ userCertificate: toArrayBuffer(entry.serial), revocationDate: time(entry.revokedAt) }),
    );
  }
  const signature = await signer.sign(Buffer.from(AsnConvert.serialize(tbs)));
  return Buffer.from(
    AsnConvert.serialize(
      new asn.CertificateList({
        tbsCertList: tbs,
        signatureAlgorithm: algorithmIdentifier(signer.algorithm),
        signature: toArrayBuffer(signature),
      }),
    ),
  );
}

const EXTENSION_REQUEST = '1.2.840.113549.1.9.14';

/** A PKCS#10 request for an intermediate CA, signed by its own (new) key. */
export async function signCsr(subject: asn.Name, extensions: (asn.Extension | undefined)[], signer: CaSigner): Promise<Buffer> {
  const present = extensions.filter((item): item is asn.Extension => item !== undefined);
  const attributes = new Attributes(
    present.length === 0
      ? []
      : [new asn.Attribute({ type: EXTENSION_REQUEST, values: [AsnConvert.serialize(new asn.Extensions(present))] })],
  );
  const info = new CertificationRequestInfo({ version: 0, subject, subjectPKInfo: publicKeyInfo(signer.publicKey), attributes });
  const signature = await signer.sign(Buffer.from(AsnConvert.serialize(info)));
  return Buffer.from(
    AsnConvert.serialize(
      new CertificationRequest({
        certificationRequestInfo: info,
        signatureAlgorithm: algorithmIdentifier(signer.algorithm),
        signature: toArrayBuffer(signature),
      }),
    ),
  );
}

export interface ParsedCsr {
  subject: asn.Name;
  publicKey: KeyObject;
  extensions: asn.Extension[];
  altNames: AltNames;
}

/** Reads a PEM CSR, or returns the real service's error text. */
export function parseCsr(pem: string): ParsedCsr | string {
  const der = pemBlocks(pem).find((block) => block.label === 'CERTIFICATE REQUEST' || block.label === 'NEW CERTIFICATE REQUEST')?.der;
  if (!der) return 'csr contains no data';
  try {
    const csr = AsnConvert.parse(der, CertificationRequest);
    const info = csr.certificationRequestInfo;
    const publicKey = createPublicKey({ key: Buffer.from(AsnConvert.serialize(info.subjectPKInfo)), format: 'der', type: 'spki' });
    const extensions: asn.Extension[] = [];
    for (const attribute of info.attributes) {
      if (attribute.type !== EXTENSION_REQUEST) continue;
      for (const value of attribute.values) extensions.push(...AsnConvert.parse(value, asn.Extensions));
    }
    return { subject: info.subject, publicKey, extensions, altNames: readAltNames(extensions) };
  } catch (error) {
    return `certificate request could not be parsed: ${(error as Error).message}`;
  }
}

// ---------- PEM ----------

export interface PemBlock {
  label: string;
  der: Buffer;
}

export function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  const pattern = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    blocks.push({ label: match[1] as string, der: Buffer.from((match[2] as string).replace(/\s+/g, ''), 'base64') });
  }
  return blocks;
}

/** PEM without a trailing newline, the way the real service's JSON values carry it. */
export function toPem(der: Uint8Array, label: string): string {
  const body = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})(?!$)/g, '$1\n');
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`;
}

export const isIpAddress = (value: string) => isIP(value) !== 0;
