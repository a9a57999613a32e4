import { badRequest } from '../../core/errors.js';
import { Pkcs11Adapter } from '../../adapters/kms/pkcs11/adapter.js';
import { CKM } from '../../adapters/kms/pkcs11/protocol.js';
import { KmsError } from '../../adapters/kms/types.js';
import { checkCurve, checkKeyBits, MASKED, merged, requireSetting, type KeyParams, type KeyTypeDefinition } from './definition.js';

const FIELDS = {
  library: { type: 'string', description: 'Name of a PKCS#11 library in UNDERSTUDY_KMS_LIBRARIES.' },
  key_label: { type: 'string', description: 'Label of the key (used for generated keys).' },
  key_id: { type: 'string', description: 'CKA_ID of an existing key, hex.' },
  mechanism: { type: 'string', description: 'Signing mechanism, hexadecimal with 0x.' },
  pin: { type: 'string', description: 'User PIN; never returned.' },
  slot: { type: 'string', description: 'Decimal slot number.' },
  token_label: { type: 'string', description: 'Label of the token.' },
  curve: { type: 'string', description: 'P256, P384 or P521 (generating ECDSA keys).', default: '' },
  key_bits: { type: 'int', description: '2048, 3072 or 4096 (generating RSA keys).', default: 0 },
  force_rw_session: { type: 'bool', description: 'Always open read-write sessions.', default: false },
  max_parallel: { type: 'int', description: 'Calls in flight to the token at once.', default: 1 },
} as const;

const RSA_MECHANISMS: number[] = [CKM.RSA_PKCS, CKM.RSA_PKCS_OAEP, CKM.RSA_PKCS_PSS, CKM.SHA256_RSA_PKCS, CKM.SHA256_RSA_PKCS_PSS];

function parseMechanism(text: string): number {
  if (!/^0x[0-9a-fA-F]{1,8}$/.test(text)) throw badRequest(`mechanism must be a hexadecimal string prefixed 0x, got "${text}"`);
  return Number.parseInt(text.slice(2), 16);
}

function checkSlot(slot: string): void {
  if (slot === '') return;
  if (/^0x/i.test(slot)) throw badRequest(`slot must be a decimal number; convert the hexadecimal slot ${slot} to decimal`);
  if (!/^\d+$/.test(slot)) throw badRequest(`slot must be a decimal number, got "${slot}"`);
}

/** Key ids are CKA_ID bytes, written in hex (with or without 0x); any other text stands for its own bytes. */
function keyIdHex(keyId: string): string | null {
  if (keyId === '') return null;
  const bare = keyId.replace(/^0x/i, '');
  return /^(?:[0-9a-fA-F]{2})+$/.test(bare) ? bare.toLowerCase() : Buffer.from(keyId, 'utf8').toString('hex');
}

function libraryPath(params: KeyParams, libraries: ReadonlyMap<string, string>): string {
  const name = String(params['library']);
  const path = libraries.get(name);
  if (path === undefined) {
    const known = [...libraries.keys()];
    throw new KmsError(
      `unknown library "${name}": not a kms_library of this server (${known.length > 0 ? `known: ${known.join(', ')}` : 'none configured'})`,
    );
  }
  return path;
}

/** `pkcs11`: a key on a PKCS#11 token (an HSM; SoftHSM2 in development). */
export function pkcs11KeyType(): KeyTypeDefinition {
  const adapter = new Pkcs11Adapter();
  return {
    fields: FIELDS,
    params(fields, stored, policy, environment) {
      const params: KeyParams = {};
      for (const [name, spec] of Object.entries(FIELDS)) {
        const fallback = 'default' in spec ? spec.default : '';
        params[name] = merged(fields, stored, name, fallback as string | number | boolean);
      }
      const text = (name: string) => String(params[name]);
      requireSetting(text('library'), 'library');
      try {
        libraryPath(params, environment.libraries);
      } catch (error) {
        throw badRequest((error as Error).message);
      }
      requireSetting(text('mechanism'), 'mechanism');
      const mechanism = parseMechanism(text('mechanism'));
      params['mechanism'] = text('mechanism');
      requireSetting(text('pin'), 'pin');
      if (text('key_label') === '' && text('key_id') === '') throw badRequest('key_label or key_id is required');
      if (text('slot') === '' && text('token_label') === '') throw badRequest('slot or token_label is required');
      checkSlot(text('slot'));
      checkCurve(text('curve'));
      checkKeyBits(Number(params['key_bits']));
      if (policy.allowGenerate && mechanism === CKM.ECDSA)
        requireSetting(text('curve'), 'curve', ' when allow_generate_key is true with the ECDSA mechanism');
      if (policy.allowGenerate && RSA_MECHANISMS.includes(mechanism) && params['key_bits'] === 0) {
        throw badRequest('key_bits is required when allow_generate_key is true with an RSA mechanism');
      }
      if (Number(params['max_parallel']) < 1) throw badRequest('max_parallel must be at least 1');
      return params;
    },
    wire(params) {
      return {
        curve: params['curve'],
        force_rw_session: params['force_rw_session'],
        key_bits: params['key_bits'],
        key_id: params['key_id'],
        key_label: params['key_label'],
        library: params['library'],
        max_parallel: params['max_parallel'],
        mechanism: parseMechanism(String(params['mechanism'])),
        pin: MASKED,
        slot: params['slot'] === '' ? 0 : Number(params['slot']),
        token_label: params['token_label'],
      };
    },
    open(params, policy, environment) {
      const text = (name: string) => String(params[name]);
      return adapter.open(
        {
          libraryPath: libraryPath(params, environment.libraries),
          slot: text('slot') === '' ? null : text('slot'),
          tokenLabel: text('token_label') === '' ? null : text('token_label'),
          pin: text('pin'),
          keyLabel: text('key_label') === '' ? null : text('key_label'),
          keyIdHex: keyIdHex(text('key_id')),
          mechanism: parseMechanism(text('mechanism')),
          curve: text('curve') === '' ? null : text('curve'),
          keyBits: Number(params['key_bits']),
          forceRwSession: params['force_rw_session'] === true,
          maxParallel: Number(params['max_parallel']),
        },
        policy,
      );
    },
    close: () => adapter.close(),
  };
}
