import { VERSION } from '../../core/version.js';
import { parseBool } from '../framework/fields.js';
import type { Backend, HandlerRequest, MountInfo } from '../framework/types.js';
import type { SecretsContext } from '../context.js';

/** The version string reported by health: a secrets-API version real tools accept, tagged with ours. */
export const SECRETS_API_VERSION = `1.15.0+understudy.${VERSION}`;

const CLUSTER_NAME = 'understudy-cluster';

/** `sys/health` honours the status-code overrides clients pass (the Go client sends them all as 299). */
function healthStatus(request: HandlerRequest): number {
  const override = request.data['activecode'];
  const code = typeof override === 'string' && /^\d{3}$/.test(override) ? Number(override) : 200;
  return code;
}

export function mountInfoWire(mount: MountInfo & { description: string; local: boolean; sealWrap: boolean; options: Record<string, string> | null }) {
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

export function systemBackend(context: SecretsContext): Backend {
  const clusterId = '00000000-0000-4000-8000-000000000000';
  const healthBody = () => ({
    initialized: true,
    sealed: false,
    standby: false,
    performance_standby: false,
    replication_performance_mode: 'disabled',
    replication_dr_mode: 'disabled',
    server_time_utc: Math.floor(context.clock.nowMs() / 1000),
    version: SECRETS_API_VERSION,
    cluster_name: CLUSTER_NAME,
    cluster_id: clusterId,
  });
  return {
    type: 'system',
    paths: [
      {
        pattern: 'health',
        summary: 'Health of the server; bare body, status by state (always active here).',
        unauthenticated: ['read'],
        operations: {
          read: (request) => ({ raw: { status: healthStatus(request), contentType: 'application/json', body: `${JSON.stringify(healthBody())}\n` } }),
        },
      },
      {
        pattern: 'seal-status',
        summary: 'Seal status; always initialized and unsealed.',
        unauthenticated: ['read'],
        operations: {
          read: () => ({
            raw: {
              status: 200,
              contentType: 'application/json',
              body: `${JSON.stringify({
                type: 'shamir',
                initialized: true,
                sealed: false,
                t: 1,
                n: 1,
                progress: 0,
                nonce: '',
                version: SECRETS_API_VERSION,
                build_date: '',
                migration: false,
                cluster_name: CLUSTER_NAME,
                cluster_id: clusterId,
                recovery_seal: false,
                storage_type: 'understudy',
              })}\n`,
            },
          }),
        },
      },
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
    ],
  };
}

export { parseBool };
