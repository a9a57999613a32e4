import type { SecretsContext } from '../context.js';
import type { LogicalRequest } from '../router.js';
import { MountStorage } from '../storage/mount-storage.js';
import { quotaMountOf } from './mounts.js';
import { RateLimiter, type QuotaRequest, type QuotaState } from './rate-limiter.js';

/**
 * What the quota check needs of a request. Like the real service, the body of a request to an
 * auth mount that some role quota names is read as a login to find its role; a body that names
 * no existing role leaves the role empty (the mount's other quotas apply).
 */
export function quotaRequest(context: SecretsContext, request: LogicalRequest, state: QuotaState): QuotaRequest {
  const mount = quotaMountOf(context, request.path);
  const mountPath = mount?.path ?? '';
  let role = '';
  if (mount?.authType !== undefined && RateLimiter.hasRoleQuota(state, mountPath)) {
    const method = context.authMounts.longestPrefix(mountPath.slice('auth/'.length).replace(/\/$/, ''));
    const resolve = context.backend(mount.authType)?.resolveRole;
    if (method && resolve) {
      role =
        resolve({
          data: request.data,
          storage: new MountStorage(context.store.db, method.uuid),
          clientCertificate: request.clientCertificate,
        }) ?? '';
    }
  }
  return { path: request.path, mountPath, role, clientAddress: request.clientAddress ?? '' };
}
