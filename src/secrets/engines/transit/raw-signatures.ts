import {
  constants,
  createHash,
  createPublicKey,
  privateEncrypt,
  publicDecrypt,
  randomBytes,
  sign,
  verify,
  type KeyObject,
  type SignKeyObjectInput,
  type VerifyKeyObjectInput,
} from 'node:crypto';
import { badRequest } from '../../../core/errors.js';
import { ecdsaSignDigest, ecdsaVerifyDigest } from './ecdsa-digest.js';

/**
 * Signatures over a digest the caller computed (`prehashed`). Node signs messages, hashing them
 * itself, so a given digest is signed here: ECDSA with the curve arithmetic in ecdsa-digest.ts,
 * RSA by encoding the digest (PKCS #1 v1.5 DigestInfo or EMSA-PSS) and applying the raw key.
 * When the digest was made here from the input, the same digest is what Node would have
 * hashed, so those go through Node's own `sign` of the input instead (see signing.ts).
 */
export interface DigestSignOptions {
  algorithm: 'ecdsa' | 'pss' | 'pkcs1v15';
  /** API hash name (`sha2-256`, …, `none`). */
  hash: string;
  saltLength: 'auto' | 'hash' | number;
  /** r ‖ s (JWS) instead of DER, for ECDSA. */
  ieee: boolean;
}

/** The hash names the API takes, as Node (OpenSSL) names them. */
export const NODE_HASH: Readonly<Record<string, string>> = {
  sha1: 'sha1',
  'sha2-224': 'sha224',
  'sha2-256': 'sha256',
  'sha2-384': 'sha384',
  'sha2-512': 'sha512',
  'sha3-224': 'sha3-224',
  'sha3-256': 'sha3-256',
  'sha3-384': 'sha3-384',
  'sha3-512': 'sha3-512',
};

/** DER DigestInfo headers (RFC 8017 §9.2 note 1, and the SHA-3 OIDs). */
const DIGEST_INFO: Readonly<Record<string, string>> = {
  sha1: '3021300906052b0e03021a05000414',
  sha224: '302d300d06096086480165030402040500041c',
  sha256: '3031300d060960864801650304020105000420',
  sha384: '3041300d060960864801650304020205000430',
  sha512: '3051300d060960864801650304020305000440',
  'sha3-224': '302d300d06096086480165030402070500041c',
  'sha3-256': '3031300d060960864801650304020805000420',
  'sha3-384': '3041300d060960864801650304020905000430',
  'sha3-512': '3051300d060960864801650304020a05000440',
};

const nodeHash = (hash: string) => NODE_HASH[hash] ?? 'sha256';

function modulusBits(key: KeyObject): number {
  return key.asymmetricKeyDetails?.modulusLength ?? 2048;
}

function saltBytes(options: DigestSignOptions, key: KeyObject, hashLength: number, signing: boolean): number {
  if (options.saltLength === 'hash') return hashLength;
  if (typeof options.saltLength === 'number') return options.saltLength;
  const max = Math.ceil((modulusBits(key) - 1) / 8) - 2 - hashLength;
  return signing ? max : -1;
}

function mgf1(seed: Buffer, length: number, hash: string): Buffer {
  const blocks: Buffer[] = [];
  for (let counter = 0; Buffer.concat(blocks).length < length; counter += 1) {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    blocks.push(createHash(hash).update(seed).update(c).digest());
  }
  return Buffer.concat(blocks).subarray(0, length);
}

/** EMSA-PSS-ENCODE (RFC 8017 §9.1.1) of a digest, for a modulus of `bits`. */
function pssEncode(digest: Buffer, bits: number, salt: Buffer, hash: string): Buffer {
  const emBits = bits - 1;
  const emLength = Math.ceil(emBits / 8);
  const h = createHash(hash).update(Buffer.alloc(8)).update(digest).update(salt).digest();
  const db = Buffer.concat([Buffer.alloc(emLength - salt.length - h.length - 2), Buffer.from([1]), salt]);
  const masked = Buffer.from(db.map((byte, index) => byte ^ (mgf1(h, db.length, hash)[index] ?? 0)));
  masked[0] = (masked[0] ?? 0) & (0xff >> (8 * emLength - emBits));
  return Buffer.concat([masked, h, Buffer.from([0xbc])]);
}

/** EMSA-PSS-VERIFY; `saltLength` -1 recovers it from the encoding. */
function pssVerify(digest: Buffer, encoded: Buffer, bits: number, saltLength: number, hash: string): boolean {
  const emBits = bits - 1;
  const emLength = Math.ceil(emBits / 8);
  const em = encoded.subarray(encoded.length - emLength);
  const hashLength = createHash(hash).digest().length;
  if (em.length < hashLength + 2 || em[em.length - 1] !== 0xbc) return false;
  const masked = em.subarray(0, em.length - hashLength - 1);
  const h = em.subarray(em.length - hashLength - 1, em.length - 1);
  const mask = mgf1(h, masked.length, hash);
  const db = Buffer.from(masked.map((byte, index) => byte ^ (mask[index] ?? 0)));
  db[0] = (db[0] ?? 0) & (0xff >> (8 * emLength - emBits));
  const one = db.indexOf(1);
  if (one === -1 || db.subarray(0, one).some((byte) => byte !== 0)) return false;
  const salt = db.subarray(one + 1);
  if (saltLength >= 0 && salt.length !== saltLength) return false;
  const expected = createHash(hash).update(Buffer.alloc(8)).update(digest).update(salt).digest();
  return expected.equals(h);
}

function checkDigest(digest: Buffer, hash: string): void {
  if (hash === 'none') return;
  const expected = createHash(nodeHash(hash)).digest().length;
  if (digest.length !== expected) throw badRequest(`crypto/rsa: input must be hashed with given hash`);
}

export function signDigest(key: KeyObject, digest: Buffer, options: DigestSignOptions): Buffer {
  if (options.algorithm === 'ecdsa') return ecdsaSignDigest(key, digest, options.ieee);
  checkDigest(digest, options.hash);
  if (options.algorithm === 'pkcs1v15') {
    const prefix = options.hash === 'none' ? Buffer.alloc(0) : Buffer.from(DIGEST_INFO[nodeHash(options.hash)] ?? '', 'hex');
    return privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.concat([prefix, digest]));
  }
  const hash = nodeHash(options.hash);
  const length = saltBytes(options, key, digest.length, true);
  if (length < 0 || length > Math.ceil((modulusBits(key) - 1) / 8) - 2 - digest.length) {
    throw badRequest(`requested salt length ${String(options.saltLength)} is invalid`);
  }
  const encoded = pssEncode(digest, modulusBits(key), randomBytes(length), hash);
  return privateEncrypt(
    { key, padding: constants.RSA_NO_PADDING },
    Buffer.concat([Buffer.alloc(modulusBits(key) / 8 - encoded.length), encoded]),
  );
}

export function verifyDigest(key: KeyObject, digest: Buffer, signature: Buffer, options: DigestSignOptions): boolean {
  if (options.algorithm === 'ecdsa') return ecdsaVerifyDigest(createPublicKey(key), digest, signature, options.ieee);
  const publicKey = createPublicKey(key);
  let opened: Buffer;
  try {
    opened = publicDecrypt(
      { key: publicKey, padding: options.algorithm === 'pkcs1v15' ? constants.RSA_PKCS1_PADDING : constants.RSA_NO_PADDING },
      signature,
    );
  } catch {
    return false;
  }
  if (options.algorithm === 'pkcs1v15') {
    const prefix = options.hash === 'none' ? Buffer.alloc(0) : Buffer.from(DIGEST_INFO[nodeHash(options.hash)] ?? '', 'hex');
    return opened.equals(Buffer.concat([prefix, digest]));
  }
  return pssVerify(digest, opened, modulusBits(key), saltBytes(options, key, digest.length, false), nodeHash(options.hash));
}

/** How Node signs a message with `key` (the hash and the key's padding options). */
function messageSigner(key: KeyObject, options: DigestSignOptions): { hash: string; key: SignKeyObjectInput } {
  const hash = nodeHash(options.hash);
  if (options.algorithm === 'ecdsa') return { hash, key: { key, dsaEncoding: options.ieee ? 'ieee-p1363' : 'der' } };
  if (options.algorithm === 'pkcs1v15') return { hash, key: { key, padding: constants.RSA_PKCS1_PADDING } };
  const digestLength = createHash(hash).digest().length;
  const length = saltBytes(options, key, digestLength, true);
  if (length < 0 || length > Math.ceil((modulusBits(key) - 1) / 8) - 2 - digestLength) {
    throw badRequest(`requested salt length ${String(options.saltLength)} is invalid`);
  }
  return { hash, key: { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: length } };
}

/** Node's own signing of a message (hashing it itself), for the common, not-prehashed case. */
export function signMessage(key: KeyObject, message: Buffer, options: DigestSignOptions): Buffer {
  const signer = messageSigner(key, options);
  return sign(signer.hash, message, signer.key);
}

/**
 * {@link signMessage} on libuv's threads: an RSA-4096 signature costs about 6 ms of CPU, so a
 * batch of them must not run on the event loop.
 */
export function signMessageOffLoop(key: KeyObject, message: Buffer, options: DigestSignOptions): Promise<Buffer> {
  const signer = messageSigner(key, options);
  return new Promise((resolve, reject) =>
    sign(signer.hash, message, signer.key, (error, signature) => (error ? reject(error) : resolve(signature))),
  );
}

function messageVerifier(key: KeyObject, options: DigestSignOptions): { hash: string; key: VerifyKeyObjectInput } {
  const hash = nodeHash(options.hash);
  const publicKey = createPublicKey(key);
  if (options.algorithm === 'ecdsa') return { hash, key: { key: publicKey, dsaEncoding: options.ieee ? 'ieee-p1363' : 'der' } };
  if (options.algorithm === 'pkcs1v15') return { hash, key: { key: publicKey, padding: constants.RSA_PKCS1_PADDING } };
  const digestLength = createHash(hash).digest().length;
  const salt = saltBytes(options, key, digestLength, false);
  return {
    hash,
    key: { key: publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: salt === -1 ? constants.RSA_PSS_SALTLEN_AUTO : salt },
  };
}

export function verifyMessage(key: KeyObject, message: Buffer, signature: Buffer, options: DigestSignOptions): boolean {
  const verifier = messageVerifier(key, options);
  return verify(verifier.hash, message, verifier.key, signature);
}

/** {@link verifyMessage} on libuv's threads. */
export function verifyMessageOffLoop(key: KeyObject, message: Buffer, signature: Buffer, options: DigestSignOptions): Promise<boolean> {
  const verifier = messageVerifier(key, options);
  return new Promise((resolve, reject) =>
    verify(verifier.hash, message, verifier.key, signature, (error, valid) => (error ? reject(error) : resolve(valid))),
  );
}
