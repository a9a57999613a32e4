import { isoTimestamp } from '../../../core/clock.js';
import type { MountStorage } from '../../storage/mount-storage.js';

/**
 * How a key/value mount lays out its storage. Version 1 keeps each entry at `v1/<path>`; version 2
 * keeps a key's metadata at `meta/<path>`, each version's data at `version/<n>/<path>` and the
 * mount-wide settings at `config`. Distinct prefixes keep a v1 entry named `meta/x` from
 * colliding, and let listing read one prefix range.
 */
export const V1_PREFIX = 'v1/';
export const META_PREFIX = 'meta/';
const CONFIG_KEY = 'config';
const versionKey = (path: string, version: number) => `version/${version}/${path}`;

/** Versions kept when neither the key nor the mount sets `max_versions` (the real service's default). */
export const DEFAULT_MAX_VERSIONS = 10;

export interface VersionMetadata {
  created_time: string;
  /** `""` while live; a time (possibly in the future, from `delete_version_after`) once deleted. */
  deletion_time: string;
  destroyed: boolean;
}

export interface KeyMetadata {
  created_time: string;
  updated_time: string;
  current_version: number;
  oldest_version: number;
  max_versions: number;
  cas_required: boolean;
  /** Seconds; 0 defers to the mount's setting. */
  delete_version_after: number;
  custom_metadata: Record<string, string> | null;
  versions: Record<string, VersionMetadata>;
}

export interface KvConfig {
  max_versions: number;
  cas_required: boolean;
  /** Seconds; 0 means none, a negative value means disabled (versions never expire). */
  delete_version_after: number;
}

export const DEFAULT_CONFIG: KvConfig = { max_versions: 0, cas_required: false, delete_version_after: 0 };

export function readConfig(storage: MountStorage): KvConfig {
  return { ...DEFAULT_CONFIG, ...storage.get<Partial<KvConfig>>(CONFIG_KEY) };
}

export function writeConfig(storage: MountStorage, config: KvConfig): void {
  storage.put(CONFIG_KEY, config);
}

export function readMeta(storage: MountStorage, path: string): KeyMetadata | undefined {
  return storage.get<KeyMetadata>(`${META_PREFIX}${path}`);
}

/**
 * `readMeta` for a reader that never changes what it read (a data read): the value is frozen and
 * shared while the entry is unchanged, so a hot key is not unsealed on every read
 * (`MountStorage.getShared`). A write seals new text, which the next read opens.
 */
export function peekMeta(storage: MountStorage, path: string): Readonly<KeyMetadata> | undefined {
  return storage.getShared<KeyMetadata>(`${META_PREFIX}${path}`);
}

/** Returns the metadata as stored (`MountStorage.put`). */
export function writeMeta(storage: MountStorage, path: string, meta: KeyMetadata): unknown {
  return storage.put(`${META_PREFIX}${path}`, meta);
}

export function newMeta(now: Date): KeyMetadata {
  const at = isoTimestamp(now);
  return {
    created_time: at,
    updated_time: at,
    current_version: 0,
    oldest_version: 0,
    max_versions: 0,
    cas_required: false,
    delete_version_after: 0,
    custom_metadata: null,
    versions: {},
  };
}

export function readVersion(storage: MountStorage, path: string, version: number): Record<string, unknown> | undefined {
  return storage.get<Record<string, unknown>>(versionKey(path, version));
}

/** `readVersion` for a reader that never changes it (answers it as it is): frozen and shared, as `peekMeta`. */
export function peekVersion(storage: MountStorage, path: string, version: number): Readonly<Record<string, unknown>> | undefined {
  return storage.getShared<Record<string, unknown>>(versionKey(path, version));
}

export function dropVersion(storage: MountStorage, path: string, version: number): void {
  storage.delete(versionKey(path, version));
}

/** Whether a version reads as deleted at `now`: its deletion time has come. */
export function isDeleted(version: VersionMetadata, now: Date): boolean {
  return version.deletion_time !== '' && Date.parse(version.deletion_time) <= now.getTime();
}

/**
 * When a new version expires: creation plus the smaller non-zero of the mount's and the key's
 * `delete_version_after`, or never when both are zero or the mount disables it.
 */
function deletionTime(created: Date, config: KvConfig, meta: KeyMetadata): string {
  if (config.delete_version_after < 0) return '';
  const candidates = [config.delete_version_after, meta.delete_version_after].filter((seconds) => seconds !== 0);
  if (candidates.length === 0) return '';
  return isoTimestamp(created.getTime() + Math.min(...candidates) * 1000);
}

/**
 * Stores `data` as the key's next version and trims the oldest past `max_versions` (the key's
 * setting, else the mount's, else 10). Returns the new version's number and metadata, and the key's metadata as stored.
 */
export function addVersion(
  storage: MountStorage,
  path: string,
  meta: KeyMetadata,
  config: KvConfig,
  data: Record<string, unknown>,
  now: Date,
): { version: number; metadata: VersionMetadata; storedMeta: unknown } {
  const version = meta.current_version + 1;
  const metadata: VersionMetadata = { created_time: isoTimestamp(now), deletion_time: deletionTime(now, config, meta), destroyed: false };
  storage.put(versionKey(path, version), data);
  meta.current_version = version;
  meta.versions[String(version)] = metadata;
  meta.updated_time = metadata.created_time;
  const max = meta.max_versions || config.max_versions || DEFAULT_MAX_VERSIONS;
  if (version - meta.oldest_version >= max) {
    const lastToDrop = version - max;
    for (let old = meta.oldest_version; old <= lastToDrop; old += 1) {
      delete meta.versions[String(old)];
      dropVersion(storage, path, old);
    }
    meta.oldest_version = lastToDrop + 1;
  }
  const storedMeta = writeMeta(storage, path, meta);
  return { version, metadata, storedMeta };
}

/** Removes a key's metadata and every version it still has (`DELETE metadata/:path`). */
export function destroyKey(storage: MountStorage, path: string, meta: KeyMetadata): void {
  for (const version of Object.keys(meta.versions)) dropVersion(storage, path, Number(version));
  storage.delete(`${META_PREFIX}${path}`);
}

/**
 * Turns version-1 entries into version 1 of each key, as the real service does when a mount is
 * tuned from `version=1` to `version=2`. Runs once per mount and process (see the backend).
 */
export function upgradeV1Entries(storage: MountStorage, now: Date): void {
  const config = readConfig(storage);
  for (const key of storage.keys(V1_PREFIX)) {
    const data = storage.get<Record<string, unknown>>(key);
    const path = key.slice(V1_PREFIX.length);
    storage.delete(key);
    if (data === undefined || readMeta(storage, path)) continue;
    addVersion(storage, path, newMeta(now), config, data, now);
  }
}
