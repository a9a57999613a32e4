import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AsnConvert } from '@peculiar/asn1-schema';
import * as asn from '@peculiar/asn1-x509';
import { algorithmIdentifier, signatureAlgorithmFor } from '../../../src/secrets/engines/pki/signer.js';
import { subjectPublicKeyInfo } from '../../../src/secrets/engines/pki/spki.js';
import {
  authorityKeyId,
  basicConstraints,
  altNamesExtension,
  emptyAltNames,
  extension,
  extKeyUsage,
  keyUsage,
  buildName,
  randomSerial,
  subjectKeyId,
  tbsCertificateDer,
  type CertificateTemplate,
} from '../../../src/secrets/engines/pki/x509.js';

/** Public keys of every kind a role or CA can name, several of each so leading zero bytes turn up. */
function publicKeys(): [string, KeyObject][] {
  const keys: [string, KeyObject][] = [];
  for (const namedCurve of ['prime256v1', 'secp384r1', 'secp521r1', 'secp224r1']) {
    for (let index = 0; index < 40; index += 1) keys.push([namedCurve, generateKeyPairSync('ec', { namedCurve }).publicKey]);
  }
  keys.push(['rsa-2048', generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey]);
  keys.push(['rsa-2048 e=3', generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 3 }).publicKey]);
  keys.push(['ed25519', generateKeyPairSync('ed25519').publicKey]);
  return keys;
}

describe('the SPKI of a public key', () => {
  it('is byte for byte what OpenSSL exports, for every key type and curve', () => {
    for (const [label, key] of publicKeys()) {
      const openssl = key.export({ format: 'der', type: 'spki' }).toString('hex');
      expect(Buffer.from(AsnConvert.serialize(subjectPublicKeyInfo(key))).toString('hex'), label).toBe(openssl);
    }
  });
});

/** The SAN extension as the library encodes the same names. */
function librarySan(item: asn.Extension): asn.Extension {
  const names = AsnConvert.parse(item.extnValue.buffer, asn.SubjectAlternativeName);
  return extension(asn.id_ce_subjectAltName, false, new asn.SubjectAlternativeName([...names]));
}

describe('the TBSCertificate of a new certificate', () => {
  it('encodes exactly as the X.509 library encodes the same structure', () => {
    const leaf = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const caKey = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey;
    const algorithm = signatureAlgorithmFor(createPublicKey(caKey));
    const issuer = buildName({ commonName: 'bench root', organization: ['Ünderstudy'] });
    const cases: CertificateTemplate[] = [
      {
        serial: randomSerial(),
        subject: buildName({ commonName: 'www.bench.test', ou: ['a', 'b'] }),
        issuer,
        notBefore: new Date('2026-01-01T00:00:00Z'),
        notAfter: new Date('2051-01-01T00:00:00Z'),
        publicKey: leaf,
        extensions: [basicConstraints(false), undefined, subjectKeyId(Buffer.alloc(20, 7)), authorityKeyId(Buffer.alloc(20, 9))],
      },
      {
        serial: randomSerial(),
        subject: buildName({}),
        issuer,
        notBefore: new Date(0),
        notAfter: new Date(),
        publicKey: leaf,
        extensions: [],
      },
      {
        serial: randomSerial(),
        subject: buildName({ commonName: 'rsa.bench.test' }),
        issuer,
        notBefore: new Date('2049-12-31T23:59:59.999Z'),
        notAfter: new Date('2050-01-01T00:00:00.001Z'),
        publicKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey,
        extensions: [
          keyUsage(5),
          extKeyUsage(['1.3.6.1.5.5.7.3.1']),
          altNamesExtension({ ...emptyAltNames(), dns: ['a.test', 'b.test'], email: ['x@a.test'], uri: ['spiffe://a/b'] }),
          altNamesExtension({ ...emptyAltNames(), dns: ['ü.test'], ip: ['10.0.0.1', '::1'] }),
        ],
      },
    ];
    for (const template of cases) {
      // The library's own encoding of each extension, SANs included.
      const extensions = template.extensions
        .filter((item) => item !== undefined)
        .map((item) => (item.extnID === asn.id_ce_subjectAltName ? librarySan(item) : item));
      const tbs = new asn.TBSCertificate({
        version: asn.Version.v3,
        serialNumber: new Uint8Array(template.serial).buffer,
        signature: algorithmIdentifier(algorithm),
        issuer: template.issuer,
        validity: new asn.Validity({ notBefore: template.notBefore, notAfter: template.notAfter }),
        subject: template.subject,
        subjectPublicKeyInfo: AsnConvert.parse(
          (template.publicKey.type === 'private' ? createPublicKey(template.publicKey) : template.publicKey).export({
            format: 'der',
            type: 'spki',
          }),
          asn.SubjectPublicKeyInfo,
        ),
        ...(extensions.length > 0 ? { extensions: new asn.Extensions(extensions) } : {}),
      });
      expect(tbsCertificateDer(template, algorithm).toString('hex')).toBe(Buffer.from(AsnConvert.serialize(tbs)).toString('hex'));
    }
  });
});

describe('the key identifier extensions', () => {
  it('encode exactly as the X.509 library encodes them', () => {
    for (const id of [Buffer.alloc(20, 0xab), Buffer.alloc(32, 1), Buffer.alloc(200, 2)]) {
      const library = {
        subject: extension(asn.id_ce_subjectKeyIdentifier, false, new asn.SubjectKeyIdentifier(id)),
        authority: extension(
          asn.id_ce_authorityKeyIdentifier,
          false,
          new asn.AuthorityKeyIdentifier({ keyIdentifier: new asn.KeyIdentifier(id) }),
        ),
      };
      const der = (value: unknown) => Buffer.from(AsnConvert.serialize(value)).toString('hex');
      expect(der(subjectKeyId(id))).toBe(der(library.subject));
      expect(der(authorityKeyId(id))).toBe(der(library.authority));
    }
  });
});
