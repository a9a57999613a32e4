import { ApiError, unprocessable } from '../../core/errors.js';

export type RegistryName = 'private' | 'public';

/** Provider names and namespaces: letters, digits, dashes and underscores, inside, at most 64. */
const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62}[A-Za-z0-9])?$/;
/** The provider protocol's major.minor versions (`5.0`, `6.0`). */
const PROTOCOL = /^\d+\.\d+$/;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
/** `linux`, `darwin`, `amd64`, `arm64`, …: Go's GOOS/GOARCH words. */
const PLATFORM_WORD = /^[a-z0-9_]{1,32}$/;

const attribute = (name: string) => `/data/attributes/${name}`;

/**
 * `registry-name` as the real service checks it: blank gives both of its messages at once, as a
 * JSON:API document with two errors.
 */
export function readRegistryName(value: string | null | undefined): RegistryName {
  if (value === 'private' || value === 'public') return value;
  const notListed = unprocessable('Registry name is not included in the list', attribute('registry-name'));
  if (value === undefined || value === null || value === '') {
    throw new ApiError(422, "Registry name can't be blank", {
      title: 'invalid attribute',
      pointer: attribute('registry-name'),
      also: [notListed],
    });
  }
  throw notListed;
}

export function validName(value: string | null | undefined, name: 'name' | 'namespace'): string {
  const label = name === 'name' ? 'Name' : 'Namespace';
  if (value === undefined || value === null || value === '') throw unprocessable(`${label} can't be blank`, attribute(name));
  if (!NAME.test(value)) {
    throw unprocessable(
      `${label} must contain only letters, numbers, dashes and underscores, and start and end with a letter or number`,
      attribute(name),
    );
  }
  return value;
}

export function validProtocols(value: string[] | undefined): string[] {
  if (value === undefined || value.length === 0) throw unprocessable("Protocols can't be blank", attribute('protocols'));
  const bad = value.find((protocol) => !PROTOCOL.test(protocol));
  if (bad !== undefined) throw unprocessable(`Protocols must be major.minor versions such as "5.0" (got "${bad}")`, attribute('protocols'));
  return [...new Set(value)];
}

export function validShasum(value: string | null | undefined): string {
  if (!value) throw unprocessable("Shasum can't be blank", attribute('shasum'));
  if (!SHA256_HEX.test(value)) throw unprocessable('Shasum must be a SHA-256 digest in hex (64 characters)', attribute('shasum'));
  return value.toLowerCase();
}

export function validPlatformWord(value: string | null | undefined, name: 'os' | 'arch'): string {
  const label = name === 'os' ? 'Os' : 'Arch';
  if (!value) throw unprocessable(`${label} can't be blank`, attribute(name));
  if (!PLATFORM_WORD.test(value)) throw unprocessable(`${label} must be lowercase letters, digits and underscores`, attribute(name));
  return value;
}

export function validFilename(value: string | null | undefined): string {
  if (!value) throw unprocessable("Filename can't be blank", attribute('filename'));
  if (value.length > 255 || /[/\\\0]/.test(value) || value === '.' || value === '..') {
    throw unprocessable('Filename must be a plain file name', attribute('filename'));
  }
  return value;
}
