import semver from 'semver';
import { unprocessable } from '../../core/errors.js';

/** Alphanumeric with dashes and underscores inside, never at either end (module names and namespaces). */
const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?$/;
const PROVIDER = /^[a-z0-9]+$/;
const MAX = 64;
/** Strict semver: three numbers, optional pre-release and build metadata (no `v`, no leading zeros). */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export type RegistryName = 'private' | 'public';

function check(value: string, attribute: string, pattern: RegExp, what: string): string {
  const pointer = `/data/attributes/${attribute}`;
  if (value === '') throw unprocessable(`${attribute} can't be blank`, pointer);
  if (value.length > MAX) throw unprocessable(`${attribute} is too long (maximum is ${MAX} characters)`, pointer);
  if (!pattern.test(value)) throw unprocessable(`${attribute} ${what}`, pointer);
  return value;
}

export const validName = (value: string, attribute = 'name') =>
  check(value, attribute, NAME, 'may contain letters, digits, dashes and underscores, and must not start or end with a dash or underscore');
export const validProvider = (value: string) => check(value, 'provider', PROVIDER, 'may contain only lowercase letters and digits');
export const validNamespace = (value: string) => validName(value, 'namespace');

export function validVersion(value: string): string {
  if (!SEMVER.test(value) || semver.valid(value) === null)
    throw unprocessable('version must be a valid semantic version', '/data/attributes/version');
  return value;
}

export function isSemver(value: string): boolean {
  return SEMVER.test(value) && semver.valid(value) !== null;
}

/** A git tag that names a version: semver with an optional `v`; the version is the tag without it. */
export function versionOfTag(tag: string): string | null {
  const version = tag.startsWith('v') ? tag.slice(1) : tag;
  return isSemver(version) ? version : null;
}

/** Newest first, by semver precedence (build metadata breaks ties by text so the order is stable). */
export function newestFirst<T extends { version: string }>(rows: T[]): T[] {
  // Parsed once per row, not once per comparison: modules can have hundreds of versions.
  const parsed = rows.map((row) => ({ row, semver: new semver.SemVer(row.version) }));
  parsed.sort((a, b) => b.semver.compare(a.semver) || b.row.version.localeCompare(a.row.version));
  return parsed.map((entry) => entry.row);
}

/** The latest version a consumer gets: the newest non-pre-release, else the newest of all. */
export function latest<T extends { version: string }>(rows: T[]): T | undefined {
  const sorted = newestFirst(rows);
  return sorted.find((row) => semver.prerelease(row.version) === null) ?? sorted[0];
}
