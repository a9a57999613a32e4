import { badRequest } from '../../core/errors.js';
import type { KeyPolicy, KmsSigner } from '../../adapters/kms/types.js';
import type { FieldData } from '../framework/fields.js';
import type { FieldSpec } from '../framework/types.js';

/** A managed key's type-specific settings as stored (strings, numbers, booleans). */
export type KeyParams = Record<string, string | number | boolean>;

/** What a key type needs from the server to reach its backend. */
export interface KeyTypeEnvironment {
  /** `UNDERSTUDY_KMS_LIBRARIES`: PKCS#11 library names and their paths. */
  libraries: ReadonlyMap<string, string>;
  /** `http://127.0.0.1:<port>` of this server, where the built-in stand-ins answer. */
  localBaseUrl(): string;
  /** The process environment, for the providers' standard credential variables. */
  env: Readonly<Record<string, string | undefined>>;
}

/** One backend type of `sys/managed-keys/:type`: its parameters, their rules, its wire form and adapter. */
export interface KeyTypeDefinition {
  fields: Record<string, FieldSpec>;
  /** The stored settings after this request: given fields over `stored`, validated (400 on a broken rule). */
  params(fields: FieldData, stored: KeyParams | undefined, policy: KeyPolicy, environment: KeyTypeEnvironment): KeyParams;
  /** The read response's type-specific fields, secrets masked. */
  wire(params: KeyParams): Record<string, unknown>;
  /** Connects to the backend and finds (or, when allowed, generates) the key. */
  open(params: KeyParams, policy: KeyPolicy, environment: KeyTypeEnvironment): Promise<KmsSigner>;
  close(): Promise<void>;
}

/** How the read response shows a secret that is set. */
export const MASKED = 'redacted';

/** A setting's value for this write: the request's, else the stored one, else the default. */
export function merged<T extends string | number | boolean>(
  fields: FieldData,
  stored: KeyParams | undefined,
  name: string,
  fallback: T,
): T {
  if (fields.has(name)) return fields.get<T>(name);
  const kept = stored?.[name];
  return kept === undefined ? fallback : (kept as T);
}

export const RSA_KEY_BITS = [2048, 3072, 4096];
export const CURVE_NAMES = ['P256', 'P384', 'P521'];

/** `key_bits` when set must be a supported RSA size. */
export function checkKeyBits(bits: number): void {
  if (bits !== 0 && !RSA_KEY_BITS.includes(bits)) throw badRequest(`key_bits must be one of ${RSA_KEY_BITS.join(', ')}, got ${bits}`);
}

/** `curve` when set must be a supported curve name. */
export function checkCurve(curve: string): void {
  if (curve !== '' && !CURVE_NAMES.includes(curve)) throw badRequest(`curve must be one of ${CURVE_NAMES.join(', ')}, got "${curve}"`);
}

export function requireSetting(value: string, name: string, why = ''): void {
  if (value === '') throw badRequest(`${name} is required${why}`);
}
