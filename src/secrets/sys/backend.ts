import { VERSION } from '../../core/version.js';
import type { Backend, HandlerRequest, PathSpec } from '../framework/types.js';
import { leasePaths } from './leases.js';
import { mountPaths } from './mounts.js';
import { policyPaths } from './policies.js';
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

/**
 * `sys/` is assembled from path groups, one file per area (health here; mounts, policies and
 * leases beside it), so each area's paths live with its logic.
 */
export function systemBackend(context: SecretsContext): Backend {
  return { type: 'system', paths: [...statusPaths(context), ...mountPaths(context), ...policyPaths(context), ...leasePaths(context)] };
}

function statusPaths(context: SecretsContext): PathSpec[] {
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
  return [
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
  ];
}

