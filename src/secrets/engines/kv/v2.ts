import { ApiError, badRequest, notFound } from '../../../core/errors.js';
import type { Clock } from '../../../core/clock.js';
import { isoTimestamp } from '../../../core/clock.js';
import { multierrorText } from '../../framework/errors.js';
import { checkAndSet, customMetadata, goDuration, maxVersions, mergePatch, signedDuration, subkeys, versionList } from './v2-input.js';
import { FieldData } from '../../framework/fields.js';
import type { FieldSpec, HandlerRequest, LogicalResponse } from '../../framework/types.js';
import {
  addVersion,
  destroyKey,
  dropVersion,
  isDeleted,
  META_PREFIX,
  newMeta,
  peekMeta,
  peekVersion,
  readConfig,
  readMeta,
  readVersion,
  writeConfig,
  writeMeta,
  type KeyMetadata,
  type KvConfig,
} from './store.js';

/** Version 2 of the key/value engine: versions, soft delete, check-and-set and per-key metadata. */

const DATA_FIELDS: Record<string, FieldSpec> = {
  version: { type: 'int', description: 'On read: the version to return (default: the current one).', default: 0 },
  data: { type: 'map', description: 'The secret: any JSON object.', example: { key: 'value' } },
  options: { type: 'map', description: 'Write options: `cas` (check-and-set version).' },
};

const METADATA_FIELDS: Record<string, FieldSpec> = {
  max_versions: { type: 'int', description: 'Versions kept for this key (0: the mount setting).' },
  cas_required: { type: 'bool', description: 'Writes must carry `options.cas`.' },
  delete_version_after: { type: 'duration', description: 'Versions expire this long after they are written (0: the mount setting).' },
  custom_metadata: { type: 'map', description: 'String pairs kept with the key (64 keys; keys 128, values 512 bytes).' },
};

const VERSION_FIELD: Record<string, FieldSpec> = {
  version: { type: 'int', description: 'The version to read (default: the current one).', default: 0 },
};

const SUBKEYS_FIELDS: Record<string, FieldSpec> = {
  ...VERSION_FIELD,
  depth: { type: 'int', description: 'How deep to descend (0: all the way).', default: 0 },
};

const CONFIG_FIELDS: Record<string, FieldSpec> = {
  max_versions: { type: 'int', description: 'Versions kept per key (0: 10).' },
  cas_required: { type: 'bool', description: 'Every write must carry `options.cas`.' },
  delete_version_after: { type: 'any', description: 'Versions expire this long after they are written; negative disables.' },
};

/** Metadata that says a version exists with no data: the store lost it (a 500 in the real engine too). */
const VERSION_DATA_MISSING = new ApiError(500, 'could not find version data', {
  messages: [multierrorText(['could not find version data'])],
});

const optionsOf = (fields: FieldData) => (fields.has('options') ? fields.get<Record<string, unknown>>('options') : undefined);

function versionMetadataWire(meta: Readonly<KeyMetadata>, version: number) {
  const entry = meta.versions[String(version)];
  return {
    created_time: entry?.created_time ?? '',
    custom_metadata: meta.custom_metadata,
    deletion_time: entry?.deletion_time ?? '',
    destroyed: entry?.destroyed ?? false,
    version,
  };
}

/**
 * The version a read names (`?version=`, else the current one) and whether it can be returned:
 * a missing key or version is a bare 404; a deleted or destroyed one is a 404 that still
 * carries the version's metadata, as the real service answers.
 */
function readableVersion(
  request: HandlerRequest,
  meta: Readonly<KeyMetadata> | undefined,
  now: Date,
  body: string,
): { version: number; meta: Readonly<KeyMetadata> } {
  const requested = new FieldData(VERSION_FIELD, request.data).get<number>('version');
  if (!meta) throw notFound();
  const version = requested > 0 ? requested : meta.current_version;
  const entry = meta.versions[String(version)];
  if (!entry) throw notFound();
  if (isDeleted(entry, now) || entry.destroyed) {
    throw new DeletedVersion({ data: { [body]: null, metadata: versionMetadataWire(meta, version) }, status: 404 });
  }
  return { version, meta };
}

/** Thrown to answer a 404 that carries a body (the logical layer returns it as a response). */
export class DeletedVersion extends Error {
  constructor(readonly response: LogicalResponse) {
    super('version deleted or destroyed');
  }
}

/** The handlers of each version-2 path, keyed by the path's first segment. */
export function v2Handlers(clock: Clock) {
  const keyOf = (request: HandlerRequest) => request.params['path'] ?? '';

  /**
   * The metadata the last existence check opened, kept for the data write that follows it: a KV
   * write then unseals the key's metadata once instead of twice (about 5% of its server CPU in a
   * profile). One slot, never shared (the check answers only a boolean), so the write may change it.
   */
  let checked: { mount: string; key: string; stored: unknown; meta: KeyMetadata } | undefined;

  /**
   * The key's metadata for a write that changes it: the checked copy when the entry is still the
   * text it was opened from (another request may have written it since: a write seals anew), else
   * opened now. The slot is emptied either way, so no two writes hold one object.
   */
  const takeCheckedMeta = (request: HandlerRequest): KeyMetadata | undefined => {
    const stored = request.storage.stored(`${META_PREFIX}${keyOf(request)}`);
    const held = checkedMetaOf(request, stored);
    checked = undefined;
    return held ?? request.storage.openStored<KeyMetadata>(stored);
  };

  /** The checked metadata when it was opened from `stored`, this request's key's entry as it is now. */
  const checkedMetaOf = (request: HandlerRequest, stored: unknown): KeyMetadata | undefined =>
    checked && checked.stored === stored && checked.mount === request.mount.uuid && checked.key === keyOf(request)
      ? checked.meta
      : undefined;

  const writeVersion = (request: HandlerRequest, data: Record<string, unknown>, meta: KeyMetadata, config: KvConfig): LogicalResponse => {
    const now = clock.now();
    const { version, storedMeta } = addVersion(request.storage, keyOf(request), meta, config, data, now);
    // Kept for the key's next write, whose existence check then need not unseal it (the answer copies what it shows).
    checked = { mount: request.mount.uuid, key: keyOf(request), stored: storedMeta, meta };
    return { data: versionMetadataWire(meta, version) };
  };

  const markVersions = (request: HandlerRequest, change: (entry: KeyMetadata['versions'][string], version: number, now: Date) => void) => {
    const versions = versionList(request);
    const meta = readMeta(request.storage, keyOf(request));
    if (!meta) return undefined;
    const now = clock.now();
    for (const version of versions) {
      const entry = meta.versions[String(version)];
      if (entry) change(entry, version, now);
    }
    writeMeta(request.storage, keyOf(request), meta);
    return undefined;
  };

  const softDelete = (entry: KeyMetadata['versions'][string], _version: number, now: Date) => {
    if (entry.destroyed || isDeleted(entry, now)) return;
    entry.deletion_time = isoTimestamp(now);
  };

  const metadataChanges = (request: HandlerRequest, meta: KeyMetadata, patch: boolean): string[] => {
    const fields = new FieldData(METADATA_FIELDS, request.data);
    const custom = fields.has('custom_metadata') ? customMetadata(fields.get('custom_metadata'), patch) : undefined;
    if (fields.has('max_versions')) meta.max_versions = maxVersions(fields);
    if (fields.has('cas_required')) meta.cas_required = fields.get<boolean>('cas_required');
    if (fields.has('delete_version_after')) meta.delete_version_after = fields.get<number>('delete_version_after');
    if (custom) {
      const raw = fields.get<Record<string, unknown>>('custom_metadata');
      const merged = patch ? { ...meta.custom_metadata, ...custom } : custom;
      if (patch) for (const [key, value] of Object.entries(raw)) if (value === null) delete merged[key];
      meta.custom_metadata = merged;
    }
    const config = readConfig(request.storage);
    return fields.has('cas_required') && config.cas_required && !meta.cas_required
      ? ['"cas_required" set to false, but is mandated by backend config. This value will be ignored.']
      : [];
  };

  return {
    fields: { data: DATA_FIELDS, metadata: METADATA_FIELDS, subkeys: SUBKEYS_FIELDS, config: CONFIG_FIELDS },
    exists: (request: HandlerRequest) => {
      const stored = request.storage.stored(`${META_PREFIX}${keyOf(request)}`);
      if (checkedMetaOf(request, stored) !== undefined) return true;
      const meta = request.storage.openStored<KeyMetadata>(stored);
      checked = meta === undefined ? undefined : { mount: request.mount.uuid, key: keyOf(request), stored, meta };
      return meta !== undefined;
    },

    data: {
      read: (request: HandlerRequest): LogicalResponse => {
        const { version, meta } = readableVersion(request, peekMeta(request.storage, keyOf(request)), clock.now(), 'data');
        const data = peekVersion(request.storage, keyOf(request), version);
        if (data === undefined) throw VERSION_DATA_MISSING;
        return { data: { data, metadata: versionMetadataWire(meta, version) } };
      },
      update: (request: HandlerRequest): LogicalResponse => {
        const fields = new FieldData(DATA_FIELDS, request.data);
        if (!fields.has('data')) throw badRequest('no data provided');
        const meta = takeCheckedMeta(request) ?? newMeta(clock.now());
        const config = readConfig(request.storage);
        checkAndSet(optionsOf(fields), config.cas_required || meta.cas_required, meta.current_version);
        return writeVersion(request, fields.get('data'), meta, config);
      },
      patch: (request: HandlerRequest): LogicalResponse => {
        const fields = new FieldData(DATA_FIELDS, request.data);
        if (!fields.has('data')) throw badRequest('no data provided');
        const meta = readMeta(request.storage, keyOf(request));
        if (!meta) throw notFound();
        const config = readConfig(request.storage);
        checkAndSet(optionsOf(fields), config.cas_required || meta.cas_required, meta.current_version);
        const current = meta.versions[String(meta.current_version)];
        if (!current) throw notFound();
        if (current.destroyed || isDeleted(current, clock.now())) {
          throw new DeletedVersion({ data: versionMetadataWire(meta, meta.current_version), status: 404 });
        }
        const existing = readVersion(request.storage, keyOf(request), meta.current_version) ?? {};
        return writeVersion(request, mergePatch(existing, fields.get('data')), meta, config);
      },
      delete: (request: HandlerRequest): undefined => {
        const meta = readMeta(request.storage, keyOf(request));
        const current = meta?.versions[String(meta.current_version)];
        if (!meta || !current) return undefined;
        softDelete(current, meta.current_version, clock.now());
        writeMeta(request.storage, keyOf(request), meta);
        return undefined;
      },
    },

    metadata: {
      read: (request: HandlerRequest): LogicalResponse => {
        const meta = readMeta(request.storage, keyOf(request));
        if (!meta) throw notFound();
        const { delete_version_after: deleteAfter, ...rest } = meta;
        return { data: { ...rest, delete_version_after: goDuration(deleteAfter) } };
      },
      list: (request: HandlerRequest): LogicalResponse => {
        const folder = keyOf(request);
        const keys = request.storage.list(`${META_PREFIX}${folder === '' || folder.endsWith('/') ? folder : `${folder}/`}`);
        if (keys.length === 0) throw notFound();
        return { data: { keys } };
      },
      update: (request: HandlerRequest): LogicalResponse | undefined => {
        if (keyOf(request) === '') throw badRequest('missing path');
        // Like the real engine: a write naming none of the settings changes (and creates) nothing.
        if (!Object.keys(METADATA_FIELDS).some((name) => request.data[name] !== undefined && request.data[name] !== null)) return undefined;
        const meta = readMeta(request.storage, keyOf(request)) ?? newMeta(clock.now());
        const warnings = metadataChanges(request, meta, false);
        writeMeta(request.storage, keyOf(request), meta);
        return warnings.length > 0 ? { warnings } : undefined;
      },
      patch: (request: HandlerRequest): LogicalResponse | undefined => {
        if (keyOf(request) === '') throw badRequest('missing path');
        const meta = readMeta(request.storage, keyOf(request));
        if (!meta) throw notFound();
        const warnings = metadataChanges(request, meta, true);
        writeMeta(request.storage, keyOf(request), meta);
        return warnings.length > 0 ? { warnings } : undefined;
      },
      delete: (request: HandlerRequest): undefined => {
        const meta = readMeta(request.storage, keyOf(request));
        if (meta) destroyKey(request.storage, keyOf(request), meta);
        return undefined;
      },
    },

    delete: { update: (request: HandlerRequest) => markVersions(request, softDelete) },
    undelete: {
      update: (request: HandlerRequest) =>
        markVersions(request, (entry) => {
          if (!entry.destroyed) entry.deletion_time = '';
        }),
    },
    destroy: {
      update: (request: HandlerRequest) =>
        markVersions(request, (entry, version) => {
          entry.destroyed = true;
          dropVersion(request.storage, keyOf(request), version);
        }),
    },

    subkeys: {
      read: (request: HandlerRequest): LogicalResponse => {
        const depth = new FieldData(SUBKEYS_FIELDS, request.data).get<number>('depth');
        if (depth < 0) throw badRequest('depth must be a non-negative integer');
        const { version, meta } = readableVersion(request, peekMeta(request.storage, keyOf(request)), clock.now(), 'subkeys');
        const data = peekVersion(request.storage, keyOf(request), version) ?? {};
        return { data: { subkeys: subkeys(data, depth), metadata: versionMetadataWire(meta, version) } };
      },
    },

    config: {
      read: (request: HandlerRequest): LogicalResponse => {
        const config = readConfig(request.storage);
        return { data: { ...config, delete_version_after: goDuration(config.delete_version_after) } };
      },
      update: (request: HandlerRequest): undefined => {
        const fields = new FieldData(CONFIG_FIELDS, request.data);
        const config = readConfig(request.storage);
        if (fields.has('max_versions')) config.max_versions = maxVersions(fields);
        if (fields.has('cas_required')) config.cas_required = fields.get<boolean>('cas_required');
        if (fields.has('delete_version_after')) config.delete_version_after = signedDuration(fields.get('delete_version_after'));
        writeConfig(request.storage, config);
        return undefined;
      },
    },
  };
}
