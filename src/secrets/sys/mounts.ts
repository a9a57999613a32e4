import { badRequest } from '../../core/errors.js';
import type { SecretsContext } from '../context.js';
import type { FieldSpec, HandlerRequest, PathSpec } from '../framework/types.js';
import { readDurationField } from '../framework/fields.js';
import { effectiveTtls } from '../leases/ttl.js';
import { canonicalMountType, mountPath, type MountRow } from '../mounts/mount-table.js';
import { MountStorage } from '../storage/mount-storage.js';
import { textOf } from '../../core/json.js';

/** Entries the listing always shows: the server's own trees, which are not in the mount table. */
const BUILT_IN_MOUNTS: { path: string; type: string; description: string; accessor: string; uuid: string }[] = [
  { path: 'identity/', type: 'identity', description: 'identity store', accessor: 'identity_builtin', uuid: 'builtin-identity' },
  {
    path: 'sys/',
    type: 'system',
    description: 'system endpoints used for control, policy and debugging',
    accessor: 'system_builtin',
    uuid: 'builtin-system',
  },
];

const ENABLE_FIELDS: Record<string, FieldSpec> = {
  path: { type: 'string', description: 'Where to mount (in the URL).' },
  type: { type: 'string', description: 'Engine type: cubbyhole, pki, database, …' },
  description: { type: 'string', description: 'Free text shown in listings.', default: '' },
  config: { type: 'map', description: 'default_lease_ttl, max_lease_ttl, allowed_managed_keys, force_no_cache.' },
  options: { type: 'kvPairs', description: 'Engine options (strings).' },
  local: { type: 'bool', description: 'Accepted; there is no replication.', default: false },
  seal_wrap: { type: 'bool', description: 'Accepted; there is no seal.', default: false },
};

const TUNE_FIELDS: Record<string, FieldSpec> = {
  path: { type: 'string', description: 'The mount (in the URL).' },
  default_lease_ttl: { type: 'any', description: 'Seconds or a duration string; "system" resets it.' },
  max_lease_ttl: { type: 'any', description: 'Seconds or a duration string; "system" resets it.' },
  description: { type: 'string', description: 'New description.' },
  allowed_managed_keys: { type: 'commaStringSlice', description: 'Managed keys the mount may use (list or comma string).' },
  options: { type: 'kvPairs', description: 'Engine options (strings).' },
  force_no_cache: { type: 'bool', description: 'Accepted for compatibility.' },
};

/** A TTL as mounts accept it: seconds or a duration string, `"system"` or 0 meaning the system's. */
function ttlSetting(name: string, value: unknown): number {
  if (value === 'system' || value === '') return 0;
  return readDurationField(name, value);
}

/** `config` (on enable) or top-level tune fields, validated and merged over `base`. */
export function mergeConfig(base: Record<string, unknown>, input: Record<string, unknown>): Record<string, unknown> {
  const config = { ...base };
  for (const name of ['default_lease_ttl', 'max_lease_ttl'] as const) {
    if (input[name] !== undefined && input[name] !== null) config[name] = ttlSetting(name, input[name]);
  }
  if (input['force_no_cache'] !== undefined)
    config['force_no_cache'] = input['force_no_cache'] === true || input['force_no_cache'] === 'true';
  const keys = input['allowed_managed_keys'];
  if (keys !== undefined && keys !== null) {
    config['allowed_managed_keys'] = Array.isArray(keys)
      ? keys.map(String)
      : textOf(keys)
          .split(',')
          .map((key) => key.trim())
          .filter((key) => key !== '');
  }
  const max = Number(config['max_lease_ttl'] ?? 0);
  const fallbackDefault = Number(config['default_lease_ttl'] ?? 0);
  if (max > 0 && fallbackDefault > max) {
    throw badRequest(`backend max lease TTL of ${max} would be lower than default lease TTL of ${fallbackDefault}`);
  }
  return config;
}

/** A mount as `sys/mounts` describes it. */
export function mountInfoWire(
  mount: Pick<MountRow, 'accessor' | 'config' | 'description' | 'local' | 'options' | 'sealWrap' | 'type' | 'uuid'>,
) {
  const { allowed_managed_keys: allowedKeys, ...config } = mount.config;
  return {
    accessor: mount.accessor,
    config: {
      default_lease_ttl: 0,
      force_no_cache: false,
      max_lease_ttl: 0,
      ...config,
      ...(Array.isArray(allowedKeys) && allowedKeys.length > 0 ? { allowed_managed_keys: allowedKeys } : {}),
    },
    description: mount.description,
    external_entropy_access: false,
    local: mount.local,
    options: mount.options,
    plugin_version: '',
    running_plugin_version: '',
    running_sha256: '',
    seal_wrap: mount.sealWrap,
    type: mount.type,
    uuid: mount.uuid,
  };
}

/**
 * Tuned options merge into the mount's: a given value replaces, an empty one removes (but for
 * `version`). A kv mount's version only goes up, as the real service allows.
 */
function tunedOptions(mount: MountRow, given: Record<string, string>): { options: Record<string, string> | null; warnings: string[] } {
  const warnings: string[] = [];
  const wanted = given['version'];
  if (wanted !== undefined && wanted !== '' && mount.type === 'kv') {
    const current = Number(mount.options?.['version'] ?? '1') || 1;
    const version = /^\s*\d+\s*$/.test(wanted) ? Number(wanted) : NaN;
    if (Number.isNaN(version)) throw badRequest(`unable to parse options: invalid version ${JSON.stringify(wanted)}`);
    if (version !== 1 && version !== 2) throw badRequest(`invalid version provided: ${version}`);
    if (current > version) throw badRequest(`cannot downgrade mount from version ${current}`);
    if (current < version) {
      warnings.push(
        `Upgrading mount from version ${current} to version ${version}. ` +
          'This mount will be unavailable for a brief period and will resume service shortly.',
      );
    }
  }
  const options: Record<string, string> = { ...mount.options };
  for (const [key, value] of Object.entries(given)) {
    if (value === '' && key !== 'version') delete options[key];
    else options[key] = value;
  }
  return { options: Object.keys(options).length > 0 ? options : null, warnings };
}

/** `sys/mounts…` and `sys/remount`: the mount table. */
export function mountPaths(context: SecretsContext): PathSpec[] {
  const { mounts, leases } = context;

  const existing = (request: HandlerRequest): MountRow => {
    const mount = mounts.get(request.params['path'] ?? '');
    if (!mount) throw badRequest(`tune of path "${mountPath(request.params['path'] ?? '')}" failed: no mount entry found`);
    return mount;
  };

  const tuneRead = (request: HandlerRequest) => {
    const mount = existing(request);
    const { defaultTtl, maxTtl } = effectiveTtls(mount.config);
    const keys = mount.config['allowed_managed_keys'];
    return {
      data: {
        description: mount.description,
        default_lease_ttl: defaultTtl,
        max_lease_ttl: maxTtl,
        force_no_cache: mount.config['force_no_cache'] === true,
        ...(Array.isArray(keys) && keys.length > 0 ? { allowed_managed_keys: keys } : {}),
        ...(mount.options ? { options: mount.options } : {}),
      },
    };
  };

  return [
    {
      pattern: 'mounts',
      summary: 'Every mounted secrets engine, keyed by path.',
      operations: {
        read: () => {
          const data: Record<string, unknown> = Object.fromEntries(mounts.all().map((mount) => [mount.path, mountInfoWire(mount)]));
          for (const builtIn of BUILT_IN_MOUNTS) {
            data[builtIn.path] = mountInfoWire({ ...builtIn, config: {}, local: false, options: null, sealWrap: false });
          }
          return { data: Object.fromEntries(Object.entries(data).sort(([a], [b]) => a.localeCompare(b))), dataAtTopLevel: true };
        },
      },
    },
    {
      pattern: 'mounts/:path*/tune',
      summary: "A mount's effective TTLs and settings; writing changes them.",
      fields: TUNE_FIELDS,
      operations: {
        read: (request) => ({ ...tuneRead(request), dataAtTopLevel: true }),
        update: (request) => {
          const mount = existing(request);
          const config = mergeConfig(mount.config, request.data);
          const patch: Parameters<typeof mounts.update>[1] = { config };
          if (request.fields.has('description')) patch.description = request.fields.get<string>('description');
          let warnings: string[] = [];
          if (request.fields.has('options')) {
            const tuned = tunedOptions(mount, request.fields.get<Record<string, string>>('options') ?? {});
            patch.options = tuned.options;
            warnings = tuned.warnings;
          }
          mounts.update(mount.path, patch);
          return warnings.length > 0 ? { data: null, warnings } : undefined;
        },
      },
    },
    {
      pattern: 'mounts/:path*',
      summary: 'Enable (POST), read or disable (DELETE) the engine at a path.',
      fields: ENABLE_FIELDS,
      operations: {
        read: (request) => {
          const mount = mounts.get(request.params['path'] ?? '');
          if (!mount) throw badRequest(`No secret engine mount at ${mountPath(request.params['path'] ?? '')}`);
          return { data: mountInfoWire(mount), dataAtTopLevel: true };
        },
        update: (request) => {
          const { type, options } = canonicalMountType(request.fields.get<string | undefined>('type') ?? '', request.fields.get('options'));
          if (!context.engines.has(type)) throw badRequest(`plugin not found in the catalog: ${type}`);
          const config = mergeConfig({}, request.fields.has('config') ? request.fields.get<Record<string, unknown>>('config') : {});
          mounts.enable({
            path: request.params['path'] ?? '',
            type,
            description: request.fields.get<string>('description'),
            config,
            options,
            local: request.fields.get<boolean>('local'),
            sealWrap: request.fields.get<boolean>('seal_wrap'),
          });
          return undefined;
        },
        delete: async (request) => {
          const path = request.params['path'] ?? '';
          mounts.assertRemovable(path, 'unmount');
          const mount = mounts.get(path);
          if (!mount) return undefined;
          // Like the real service: the mount stays when its leases cannot all be revoked (they are retried).
          const failed = await leases.revokeForMount(mount.uuid);
          if (failed[0]) throw badRequest(`failed to revoke leases under ${mount.path}: ${failed[0].error}`);
          new MountStorage(context.store.db, mount.uuid).clear();
          mounts.remove(mount.path);
          await context.backend(mount.type)?.unmounted?.(mount.uuid);
          return undefined;
        },
      },
    },
    {
      pattern: 'remount',
      summary: 'Move a mount, with its data and leases, to another path.',
      sudo: true,
      fields: { from: { type: 'string', description: 'Current path.' }, to: { type: 'string', description: 'New path.' } },
      operations: {
        update: (request) => {
          const from = request.fields.get<string | undefined>('from') ?? '';
          const to = request.fields.get<string | undefined>('to') ?? '';
          if (from === '' || to === '') throw badRequest('both "from" and "to" path must be specified as strings');
          mounts.assertRemovable(from, 'remount');
          const moved = mounts.move(from, to);
          leases.moveMount(moved.uuid, mountPath(from), moved.path);
          return undefined;
        },
      },
    },
  ];
}
