import { ApiError, badRequest } from '../../core/errors.js';
import { VERSION } from '../../core/version.js';
import { textOf } from '../../core/json.js';
import { parseBool } from '../framework/fields.js';
import type { Backend, PathSpec } from '../framework/types.js';
import { auditPaths } from './audit.js';
import { authMountPaths } from './auth.js';
import { capabilityPaths } from './capabilities.js';
import { internalUiPaths } from './internal-ui.js';
import { keyringPaths } from './keyring.js';
import { leasePaths } from './leases.js';
import { managedKeyPaths } from './managed-keys.js';
import { mountPaths } from './mounts.js';
import { passwordPolicyPaths } from './password-policies.js';
import { policyPaths } from './policies.js';
import { wrappingPaths } from './wrapping.js';
import { quotaPaths } from '../quotas/paths.js';
import type { SecretsContext } from '../context.js';

/** The version string reported by health: a secrets-API version real tools accept, tagged with ours. */
export const SECRETS_API_VERSION = `1.15.0+understudy.${VERSION}`;

const CLUSTER_NAME = 'understudy-cluster';

/** The state-by-state status codes a health check may override; this server is always active. */
const HEALTH_CODE_PARAMS = ['activecode', 'standbycode', 'drsecondarycode', 'performancestandbycode', 'sealedcode', 'uninitcode'];
const HEALTH_BOOL_PARAMS = ['standbyok', 'perfstandbyok'];

/** Health answers bad parameters, and methods other than GET and HEAD, without messages. */
const healthError = (status: number) => new ApiError(status, 'bad health request', { messages: [] });

/** A query parameter's first value, as the real service reads it. */
function firstValue(value: unknown): string | undefined {
  const first: unknown = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : textOf(first);
}

/**
 * A status-code override, read like Go's strconv.Atoi. The real service fails a code HTTP cannot
 * carry while writing the response; a code outside 200-999 is refused as a bad parameter instead.
 */
function statusCodeParameter(value: string): number {
  if (!/^[+-]?\d+$/.test(value)) throw healthError(400);
  const code = Number(value);
  if (!Number.isSafeInteger(code) || code < 200 || code > 999) throw healthError(400);
  return code;
}

/** `sys/health`'s status: `activecode` when given (every override is still validated), else 200. */
function healthStatus(query: Record<string, unknown>): number {
  for (const name of HEALTH_BOOL_PARAMS) {
    const value = firstValue(query[name]);
    if (value !== undefined && parseBool(value) === undefined) throw healthError(400);
  }
  let status = 200;
  for (const name of HEALTH_CODE_PARAMS) {
    const value = firstValue(query[name]);
    if (value === undefined) continue;
    const code = statusCodeParameter(value);
    if (name === 'activecode') status = code;
  }
  return status;
}

/** Only GET and HEAD reach the health handler; every other method is refused there. */
const refuseHealthMethod = (): never => {
  throw healthError(405);
};

/**
 * `sys/` is assembled from path groups, one file per area (health here; mounts, policies and
 * leases beside it), so each area's paths live with its logic.
 */
export function systemBackend(context: SecretsContext): Backend {
  return {
    type: 'system',
    paths: [
      ...statusPaths(context),
      ...mountPaths(context),
      ...authMountPaths(context),
      ...policyPaths(context),
      ...capabilityPaths(context),
      ...passwordPolicyPaths(context),
      ...leasePaths(context),
      ...auditPaths(context),
      ...managedKeyPaths(context),
      ...quotaPaths(context),
      ...internalUiPaths(context),
      ...wrappingPaths(context),
      ...keyringPaths(context),
    ],
  };
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
      summary: 'Health of the server; bare body, status by state (always active here). Only GET and HEAD.',
      // A handler of its own in the real service: no token is looked at, for any method.
      unauthenticated: ['read', 'list', 'create', 'update', 'delete', 'patch'],
      neverWrapped: true,
      operations: {
        read: (request) => ({
          raw: { status: healthStatus(request.data), contentType: 'application/json', body: `${JSON.stringify(healthBody())}\n` },
        }),
        list: refuseHealthMethod,
        update: refuseHealthMethod,
        delete: refuseHealthMethod,
        patch: refuseHealthMethod,
      },
    },
    {
      pattern: 'init',
      summary: 'Whether the server is initialized; it always is, so initializing it again is refused as the real server refuses it.',
      unauthenticated: ['read', 'update'],
      neverWrapped: true,
      operations: {
        read: () => ({ raw: { status: 200, contentType: 'application/json', body: '{"initialized":true}\n' } }),
        update: () => {
          throw badRequest('Vault is already initialized');
        },
      },
    },
    {
      pattern: 'seal-status',
      summary: 'Seal status; always initialized and unsealed.',
      unauthenticated: ['read'],
      neverWrapped: true,
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
