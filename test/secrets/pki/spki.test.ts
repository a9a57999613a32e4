import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AsnConvert } from '@peculiar/asn1-schema';
import { subjectPublicKeyInfo } from '../../../src/secrets/engines/pki/spki.js';

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
