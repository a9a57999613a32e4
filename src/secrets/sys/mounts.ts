import type { PathSpec } from '../framework/types.js';
import type { SecretsContext } from '../context.js';
import type { MountRow } from '../mounts/mount-table.js';

/** `sys/mounts…`: the mount table. */
export function mountPaths(context: SecretsContext): PathSpec[] {
  return [
    {
      pattern: 'mounts',
      summary: 'Every mounted secrets engine, keyed by path.',
      operations: {
        read: () => {
          const data = Object.fromEntries(context.mounts.all().map((mount) => [mount.path, mountInfoWire(mount)]));
          return { data, dataAtTopLevel: true };
        },
      },
    },
  ];
}

/** A mount as `sys/mounts` describes it. */
export function mountInfoWire(mount: MountRow) {
  return {
    accessor: mount.accessor,
    config: { default_lease_ttl: 0, force_no_cache: false, max_lease_ttl: 0, ...mount.config },
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
