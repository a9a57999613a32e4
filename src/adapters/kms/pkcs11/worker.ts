import { createHash, randomBytes } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
// The default import: with `import * as`, the CK* constants are undefined under ESM.
import pkcs11js from 'pkcs11js';
import { CKM, CURVES, type Pkcs11KeyRef, type PublicJwk, type WorkerReply, type WorkerRequest } from './protocol.js';

/**
 * A PKCS#11 worker: every pkcs11js call is synchronous (key generation takes ~100 ms), so they
 * run here, off the event loop. One worker holds, per library, the loaded module and one session
 * per slot, logged in with the PIN that last succeeded.
 */

type Handle = Buffer;

interface Slot {
  session: Handle;
  rw: boolean;
  pin: string | null;
}

const modules = new Map<string, pkcs11js.PKCS11>();
const slots = new Map<string, Slot>();
const keys = new Map<string, { session: Handle; privateKey: Handle }>();

/** SHA-256 DigestInfo prefix, which CKM_RSA_PKCS expects before the digest. */
const SHA256_DIGEST_INFO = Buffer.from('3031300d060960864801650304020105000420', 'hex');
const CKG_MGF1_SHA256 = 0x2;

class Refusal extends Error {}

function moduleFor(path: string): pkcs11js.PKCS11 {
  let module = modules.get(path);
  if (module) return module;
  module = new pkcs11js.PKCS11();
  try {
    module.load(path);
  } catch (error) {
    throw new Refusal(`cannot load the PKCS#11 library: ${(error as Error).message}`);
  }
  try {
    // Workers are threads of one process sharing the library: without CKF_OS_LOCKING_OK a library
    // may assume a single thread (SoftHSM2 then disables its mutexes, and parallel signs on
    // max_parallel workers fail now and then with CKR_GENERAL_ERROR).
    module.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
  } catch (error) {
    // Another worker of this process initialised the shared library already.
    if (!(error instanceof pkcs11js.Pkcs11Error && error.code === pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED)) throw error;
  }
  modules.set(path, module);
  return module;
}

const slotNumber = (handle: Handle) => handle.readBigUInt64LE(0).toString();

function findSlot(module: pkcs11js.PKCS11, ref: Pkcs11KeyRef): Handle {
  const present = module.C_GetSlotList(true);
  if (ref.slot !== null) {
    const found = present.find((handle) => slotNumber(handle) === ref.slot);
    if (!found) throw new Refusal(`no token in slot ${ref.slot}`);
    if (ref.tokenLabel !== null && module.C_GetTokenInfo(found).label.trim() !== ref.tokenLabel) {
      throw new Refusal(`the token in slot ${ref.slot} is not labelled "${ref.tokenLabel}"`);
    }
    return found;
  }
  const found = present.find((handle) => module.C_GetTokenInfo(handle).label.trim() === ref.tokenLabel);
  if (!found) throw new Refusal(`no token labelled "${ref.tokenLabel}"`);
  return found;
}

/** A session on the key's slot, logged in with the key's PIN (logging out first if another PIN was used). */
function sessionFor(module: pkcs11js.PKCS11, ref: Pkcs11KeyRef, needRw: boolean): Handle {
  const slotHandle = findSlot(module, ref);
  const slotKey = `${ref.libraryPath}|${slotNumber(slotHandle)}`;
  let slot = slots.get(slotKey);
  if (slot && needRw && !slot.rw) {
    module.C_CloseSession(slot.session);
    slots.delete(slotKey);
    slot = undefined;
  }
  if (!slot) {
    const rw = needRw || ref.forceRwSession;
    const flags = pkcs11js.CKF_SERIAL_SESSION | (rw ? pkcs11js.CKF_RW_SESSION : 0);
    slot = { session: module.C_OpenSession(slotHandle, flags), rw, pin: null };
    slots.set(slotKey, slot);
  }
  if (slot.pin !== ref.pin) login(module, slot, ref.pin, ref.pinVerified === true);
  return slot.session;
}

function login(module: pkcs11js.PKCS11, slot: Slot, pin: string, pinVerified: boolean): void {
  const attempt = () => module.C_Login(slot.session, pkcs11js.CKU_USER, pin);
  try {
    attempt();
  } catch (error) {
    if (!(error instanceof pkcs11js.Pkcs11Error) || error.code !== pkcs11js.CKR_USER_ALREADY_LOGGED_IN) throw error;
    if (pinVerified) {
      slot.pin = pin;
      return;
    }
    // Logged in, but this PIN was never checked: log out and check it.
    module.C_Logout(slot.session);
    slot.pin = null;
    attempt();
  }
  slot.pin = pin;
}

function idBytes(ref: Pkcs11KeyRef): Buffer | null {
  return ref.keyIdHex === null ? null : Buffer.from(ref.keyIdHex, 'hex');
}

function findObject(module: pkcs11js.PKCS11, session: Handle, ref: Pkcs11KeyRef, objectClass: number): Handle | null {
  const template: pkcs11js.Template = [{ type: pkcs11js.CKA_CLASS, value: objectClass }];
  if (ref.keyLabel !== null) template.push({ type: pkcs11js.CKA_LABEL, value: ref.keyLabel });
  const id = idBytes(ref);
  if (id !== null) template.push({ type: pkcs11js.CKA_ID, value: id });
  module.C_FindObjectsInit(session, template);
  try {
    return module.C_FindObjects(session);
  } finally {
    module.C_FindObjectsFinal(session);
  }
}

const isEcdsa = (ref: Pkcs11KeyRef) => ref.mechanism === CKM.ECDSA;

function generate(module: pkcs11js.PKCS11, session: Handle, ref: Pkcs11KeyRef): void {
  const id = idBytes(ref) ?? randomBytes(8);
  const common = [
    { type: pkcs11js.CKA_TOKEN, value: true },
    { type: pkcs11js.CKA_ID, value: id },
    ...(ref.keyLabel !== null ? [{ type: pkcs11js.CKA_LABEL, value: ref.keyLabel }] : []),
  ];
  const privateTemplate = [
    ...common,
    { type: pkcs11js.CKA_PRIVATE, value: true },
    { type: pkcs11js.CKA_SIGN, value: true },
    { type: pkcs11js.CKA_SENSITIVE, value: true },
    { type: pkcs11js.CKA_EXTRACTABLE, value: false },
  ];
  if (isEcdsa(ref)) {
    const curve = CURVES[ref.curve ?? ''];
    if (!curve) throw new Refusal(`unsupported curve "${ref.curve ?? ''}"`);
    module.C_GenerateKeyPair(
      session,
      { mechanism: pkcs11js.CKM_EC_KEY_PAIR_GEN },
      [...common, { type: pkcs11js.CKA_VERIFY, value: true }, { type: pkcs11js.CKA_EC_PARAMS, value: Buffer.from(curve.oidHex, 'hex') }],
      privateTemplate,
    );
    return;
  }
  module.C_GenerateKeyPair(
    session,
    { mechanism: pkcs11js.CKM_RSA_PKCS_KEY_PAIR_GEN },
    [
      ...common,
      { type: pkcs11js.CKA_VERIFY, value: true },
      { type: pkcs11js.CKA_MODULUS_BITS, value: ref.keyBits },
      { type: pkcs11js.CKA_PUBLIC_EXPONENT, value: Buffer.from([1, 0, 1]) },
    ],
    privateTemplate,
  );
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');

function attribute(module: pkcs11js.PKCS11, session: Handle, object: Handle, type: number): Buffer {
  const [found] = module.C_GetAttributeValue(session, object, [{ type }]);
  return found?.value as Buffer;
}

function publicJwk(module: pkcs11js.PKCS11, session: Handle, ref: Pkcs11KeyRef, privateKey: Handle): PublicJwk {
  const publicKey = findObject(module, session, ref, pkcs11js.CKO_PUBLIC_KEY);
  const keyType = attribute(module, session, privateKey, pkcs11js.CKA_KEY_TYPE).readUInt32LE(0);
  if (keyType === pkcs11js.CKK_RSA) {
    const source = publicKey ?? privateKey;
    return {
      kty: 'RSA',
      n: b64url(attribute(module, session, source, pkcs11js.CKA_MODULUS)),
      e: b64url(attribute(module, session, source, pkcs11js.CKA_PUBLIC_EXPONENT)),
    };
  }
  if (keyType !== pkcs11js.CKK_EC) throw new Refusal('the key is neither an RSA nor an EC key');
  if (!publicKey) throw new Refusal('the EC key has no public key object on the token');
  const params = attribute(module, session, publicKey, pkcs11js.CKA_EC_PARAMS).toString('hex');
  const curve = Object.values(CURVES).find((candidate) => candidate.oidHex === params);
  if (!curve) throw new Refusal('the EC key is on a curve this server does not support');
  // CKA_EC_POINT is a DER OCTET STRING around the uncompressed point 04‖X‖Y.
  const point = attribute(module, session, publicKey, pkcs11js.CKA_EC_POINT);
  const raw = point.subarray(point.length - (2 * curve.size + 1));
  return { kty: 'EC', crv: curve.jwk, x: b64url(raw.subarray(1, 1 + curve.size)), y: b64url(raw.subarray(1 + curve.size)) };
}

const cacheKey = (ref: Pkcs11KeyRef) => JSON.stringify([ref.libraryPath, ref.slot, ref.tokenLabel, ref.keyLabel, ref.keyIdHex, ref.pin]);

function describe(ref: Pkcs11KeyRef): string {
  if (ref.keyIdHex !== null) return `key id ${ref.keyIdHex}`;
  return `key labelled "${ref.keyLabel ?? ''}"`;
}

/** Finds the private key (generating the pair when allowed and missing) and returns its public half. */
function open(ref: Pkcs11KeyRef, allowGenerate: boolean): PublicJwk {
  const module = moduleFor(ref.libraryPath);
  const session = sessionFor(module, ref, allowGenerate);
  let privateKey = findObject(module, session, ref, pkcs11js.CKO_PRIVATE_KEY);
  if (!privateKey) {
    if (ref.keyIdHex !== null && ref.keyLabel === null) throw new Refusal(`${describe(ref)} not found`);
    if (!allowGenerate) throw new Refusal(`${describe(ref)} not found and allow_generate_key is false`);
    generate(module, session, ref);
    privateKey = findObject(module, session, ref, pkcs11js.CKO_PRIVATE_KEY);
    if (!privateKey) throw new Refusal('the generated key cannot be found');
  }
  keys.set(cacheKey(ref), { session, privateKey });
  return publicJwk(module, session, ref, privateKey);
}

function mechanismFor(ref: Pkcs11KeyRef): { mechanism: pkcs11js.Mechanism; input: (data: Buffer) => Buffer } {
  const digest = (data: Buffer) => createHash('sha256').update(data).digest();
  const pss: pkcs11js.RsaPSS = { type: pkcs11js.CK_PARAMS_RSA_PSS, hashAlg: pkcs11js.CKM_SHA256, mgf: CKG_MGF1_SHA256, saltLen: 32 };
  switch (ref.mechanism) {
    case CKM.RSA_PKCS:
      return { mechanism: { mechanism: CKM.RSA_PKCS }, input: (data) => Buffer.concat([SHA256_DIGEST_INFO, digest(data)]) };
    case CKM.RSA_PKCS_PSS:
      return { mechanism: { mechanism: CKM.RSA_PKCS_PSS, parameter: pss }, input: digest };
    case CKM.SHA256_RSA_PKCS:
      return { mechanism: { mechanism: CKM.SHA256_RSA_PKCS }, input: (data) => data };
    case CKM.SHA256_RSA_PKCS_PSS:
      return { mechanism: { mechanism: CKM.SHA256_RSA_PKCS_PSS, parameter: pss }, input: (data) => data };
    case CKM.ECDSA:
      return { mechanism: { mechanism: CKM.ECDSA }, input: digest };
    default:
      throw new Refusal(`mechanism 0x${ref.mechanism.toString(16).padStart(4, '0')} cannot sign`);
  }
}

function sign(ref: Pkcs11KeyRef, data: Buffer): Buffer {
  const module = moduleFor(ref.libraryPath);
  let key = keys.get(cacheKey(ref));
  if (!key) {
    open(ref, false);
    key = keys.get(cacheKey(ref));
    if (!key) throw new Refusal(`${describe(ref)} not found`);
  }
  const { mechanism, input } = mechanismFor(ref);
  module.C_SignInit(key.session, mechanism, key.privateKey);
  return Buffer.from(module.C_Sign(key.session, input(data), Buffer.alloc(1024)));
}

/** Failures that mean this worker's sessions or handles went stale, not that the request is wrong. */
const STALE = [
  pkcs11js.CKR_USER_NOT_LOGGED_IN,
  pkcs11js.CKR_OBJECT_HANDLE_INVALID,
  pkcs11js.CKR_KEY_HANDLE_INVALID,
  pkcs11js.CKR_SESSION_HANDLE_INVALID,
  pkcs11js.CKR_SESSION_CLOSED,
];

/**
 * Runs `work`, once more on fresh sessions when they went stale: another worker logged the
 * process out to check a different PIN on the same token, or closed the token's last session.
 */
function withFreshSessions<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (!(error instanceof pkcs11js.Pkcs11Error) || !STALE.includes(error.code)) throw error;
    for (const [slotKey, slot] of slots) {
      try {
        modules.get(slotKey.slice(0, slotKey.lastIndexOf('|')))?.C_CloseSession(slot.session);
      } catch {
        // Already invalid: nothing to close.
      }
    }
    slots.clear();
    keys.clear();
    return work();
  }
}

/** The message of a PKCS#11 failure: the CKR_* name, which is what users search for. */
function messageOf(error: unknown): string {
  if (error instanceof pkcs11js.Pkcs11Error) return error.message.split(':')[0]?.trim() || `CKR 0x${error.code.toString(16)}`;
  return error instanceof Error ? error.message : String(error);
}

parentPort?.on('message', (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    if (request.op === 'open')
      reply = { id: request.id, ok: true, publicJwk: withFreshSessions(() => open(request.key, request.allowGenerate)) };
    else reply = { id: request.id, ok: true, signature: withFreshSessions(() => sign(request.key, Buffer.from(request.data))) };
  } catch (error) {
    reply = { id: request.id, ok: false, error: messageOf(error) };
  }
  parentPort?.postMessage(reply);
});
