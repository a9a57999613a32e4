import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import * as asn from '@peculiar/asn1-x509';

/**
 * The few certificates HTTPS mode needs: a local CA and a server certificate it signs. Both use
 * P-256 ECDSA keys, which every client accepts. This is deliberately separate from the PKI secrets
 * engine (which builds certificates for API callers, under the emulated clock): these are dated in
 * real time, because the TLS clients checking them read the machine's clock.
 */

const ECDSA_SHA256 = '1.2.840.10045.4.3.2';
const OID_CN = '2.5.4.3';
const OID_ORGANIZATION = '2.5.4.10';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

export interface KeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export const newKeyPair = (): KeyPair => generateKeyPairSync('ec', { namedCurve: 'P-256' });

function name(commonName: string): asn.Name {
  const attribute = (type: string, value: string) =>
    new asn.RelativeDistinguishedName([new asn.AttributeTypeAndValue({ type, value: new asn.AttributeValue({ utf8String: value }) })]);
  return new asn.Name([attribute(OID_ORGANIZATION, 'understudy'), attribute(OID_CN, commonName)]);
}

function extension(oid: string, critical: boolean, value: unknown): asn.Extension {
  return new asn.Extension({ extnID: oid, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

function publicKeyInfo(key: KeyObject): asn.SubjectPublicKeyInfo {
  return AsnConvert.parse(key.export({ format: 'der', type: 'spki' }), asn.SubjectPublicKeyInfo);
}

/** RFC 5280 method 1: the SHA-1 of the public key bits. */
function keyIdentifier(key: KeyObject): ArrayBuffer {
  const digest = createHash('sha1')
    .update(Buffer.from(publicKeyInfo(key).subjectPublicKey))
    .digest();
  return toArrayBuffer(digest);
}

const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer =>
  bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/** 16 random bytes, positive and without a leading zero byte. */
function serial(): ArrayBuffer {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] as number) & 0x7f) | 0x40;
  return toArrayBuffer(bytes);
}

interface Template {
  subject: asn.Name;
  issuer: asn.Name;
  notBefore: Date;
  notAfter: Date;
  publicKey: KeyObject;
  extensions: asn.Extension[];
}

function signCertificate(template: Template, issuerKey: KeyObject): string {
  const algorithm = new asn.AlgorithmIdentifier({ algorithm: ECDSA_SHA256 });
  const tbs = new asn.TBSCertificate({
    version: asn.Version.v3,
    serialNumber: serial(),
    signature: algorithm,
    issuer: template.issuer,
    validity: new asn.Validity({ notBefore: template.notBefore, notAfter: template.notAfter }),
    subject: template.subject,
    subjectPublicKeyInfo: publicKeyInfo(template.publicKey),
    extensions: new asn.Extensions(template.extensions),
  });
  const signature = sign('sha256', Buffer.from(AsnConvert.serialize(tbs)), issuerKey);
  const certificate = new asn.Certificate({ tbsCertificate: tbs, signatureAlgorithm: algorithm, signatureValue: toArrayBuffer(signature) });
  return toPem(Buffer.from(AsnConvert.serialize(certificate)), 'CERTIFICATE');
}

function toPem(der: Buffer, label: string): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

export const privateKeyPem = (key: KeyObject) => key.export({ format: 'pem', type: 'pkcs8' }).toString();

const DAY_MS = 24 * 60 * 60 * 1000;
/** A little back-dating, so a client whose clock lags slightly still accepts a fresh certificate. */
const BACKDATE_MS = 60 * 60 * 1000;
export const CA_LIFETIME_DAYS = 3650;
/** Under the 398 days browsers and some TLS stacks accept for a server certificate. */
export const SERVER_LIFETIME_DAYS = 365;

/** A self-signed CA certificate for `key`. */
export function issueCa(key: KeyPair, now = new Date()): string {
  const subject = name(`understudy local CA ${randomBytes(4).toString('hex')}`);
  const id = keyIdentifier(key.publicKey);
  return signCertificate(
    {
      subject,
      issuer: subject,
      notBefore: new Date(now.getTime() - BACKDATE_MS),
      notAfter: new Date(now.getTime() + CA_LIFETIME_DAYS * DAY_MS),
      publicKey: key.publicKey,
      extensions: [
        extension(asn.id_ce_basicConstraints, true, new asn.BasicConstraints({ cA: true, pathLenConstraint: 0 })),
        extension(asn.id_ce_keyUsage, true, new asn.KeyUsage(asn.KeyUsageFlags.keyCertSign | asn.KeyUsageFlags.cRLSign)),
        extension(asn.id_ce_subjectKeyIdentifier, false, new asn.SubjectKeyIdentifier(id)),
      ],
    },
    key.privateKey,
  );
}

/** A server certificate for `hosts` (names and IP addresses), signed by the CA. */
export function issueServer(hosts: readonly string[], serverKey: KeyObject, ca: { pem: string; key: KeyObject }, now = new Date()): string {
  const caCertificate = AsnConvert.parse(pemBody(ca.pem), asn.Certificate);
  const altNames = hosts.map((host) => (isIP(host) ? new asn.GeneralName({ iPAddress: host }) : new asn.GeneralName({ dNSName: host })));
  const publicKey = createPublicKey(serverKey);
  return signCertificate(
    {
      subject: name(hosts[0] ?? 'localhost'),
      issuer: caCertificate.tbsCertificate.subject,
      notBefore: new Date(now.getTime() - BACKDATE_MS),
      notAfter: new Date(now.getTime() + SERVER_LIFETIME_DAYS * DAY_MS),
      publicKey,
      extensions: [
        extension(asn.id_ce_basicConstraints, true, new asn.BasicConstraints({ cA: false })),
        extension(asn.id_ce_keyUsage, true, new asn.KeyUsage(asn.KeyUsageFlags.digitalSignature)),
        extension(asn.id_ce_extKeyUsage, false, new asn.ExtendedKeyUsage([SERVER_AUTH])),
        extension(asn.id_ce_subjectAltName, false, new asn.SubjectAlternativeName(altNames)),
        extension(asn.id_ce_subjectKeyIdentifier, false, new asn.SubjectKeyIdentifier(keyIdentifier(publicKey))),
        extension(
          asn.id_ce_authorityKeyIdentifier,
          false,
          new asn.AuthorityKeyIdentifier({ keyIdentifier: new asn.KeyIdentifier(keyIdentifier(createPublicKey(ca.key))) }),
        ),
      ],
    },
    ca.key,
  );
}

function pemBody(pem: string): Buffer {
  return Buffer.from(pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64');
}
