import { badRequest, notFound } from '../../core/errors.js';
import type { SecretsContext } from '../context.js';
import type { HandlerRequest, LogicalResponse, PathSpec } from '../framework/types.js';
import { quotaMountOf } from './mounts.js';
import type { RateLimitQuota } from './rate-limiter.js';

/** Where a quota applies: its mount (empty for global) and the path suffix after it. */
function placement(context: SecretsContext, requested: string): { mountPath: string; pathSuffix: string; authType?: string } {
  const path = requested.trim().replace(/^\/+/, '');
  if (path === '') return { mountPath: '', pathSuffix: '' };
  const mount = quotaMountOf(context, path);
  if (!mount) throw badRequest(`invalid mount path ${JSON.stringify(path)}`);
  const pathSuffix = `${path}/`.startsWith(mount.path) ? path.slice(mount.path.length).replace(/\/$/, '') : '';
  return { mountPath: mount.path, pathSuffix, ...(mount.authType ? { authType: mount.authType } : {}) };
}

/** The real checks on `role`: only on a whole auth mount whose method resolves login roles. */
function checkRole(context: SecretsContext, role: string, where: ReturnType<typeof placement>): void {
  if (role === '') return;
  if (where.pathSuffix !== '')
    throw badRequest(
      'Quotas cannot contain both a path suffix and a role. If a role is provided, path must be a valid auth mount with a concept of roles',
    );
  if (where.authType === undefined)
    throw badRequest(
      `Mount path ${JSON.stringify(where.mountPath)} is not a valid auth method and therefore unsuitable for use with role-based quotas`,
    );
  if (!context.backend(where.authType)?.resolveRole)
    throw badRequest(`Mount path ${JSON.stringify(where.mountPath)} does not support use with role-based quotas`);
}

/** Global quotas are inheritable and only they may be: the real rule, though there are no namespaces here. */
function inheritableOf(request: HandlerRequest, global: boolean): boolean {
  if (!request.fields.has('inheritable')) return global;
  const inheritable = request.fields.get<boolean>('inheritable');
  if (inheritable && !global) throw badRequest('only namespace quotas can be configured as inheritable');
  if (!inheritable && global) throw badRequest('all global quotas must be inheritable');
  return inheritable;
}

/** Creates or replaces a quota: like the real service, fields not sent take their defaults. */
function writeRateLimit(context: SecretsContext, request: HandlerRequest): undefined {
  const name = request.params.name ?? '';
  const { fields } = request;
  const rate = Number(fields.get<unknown>('rate'));
  if (!Number.isFinite(rate) || rate <= 0) throw badRequest("'rate' is invalid");
  const interval = fields.get<number>('interval') || 1;
  const blockInterval = fields.get<number>('block_interval');
  if (blockInterval < 0) throw badRequest("'block' is invalid");
  const where = placement(context, fields.get<string>('path'));
  const role = fields.get<string>('role');
  checkRole(context, role, where);
  const inheritable = inheritableOf(request, where.mountPath === '' && where.pathSuffix === '' && role === '');
  const limiter = context.quotas;
  const state = limiter.state();
  const clash = Object.values(state.rateLimits).find(
    (quota) => quota.name !== name && quota.mount_path === where.mountPath && quota.path_suffix === where.pathSuffix && quota.role === role,
  );
  if (clash) throw badRequest(`quota rule with similar properties exists under the name ${JSON.stringify(clash.name)}`);
  const quota: RateLimitQuota = {
    name,
    mount_path: where.mountPath,
    path_suffix: where.pathSuffix,
    role,
    rate,
    interval,
    block_interval: blockInterval,
    inheritable,
  };
  limiter.save({ ...state, rateLimits: { ...state.rateLimits, [name]: quota } });
  limiter.forget(name);
  return undefined;
}

/** A quota as the real service reads it back. */
const quotaWire = (quota: RateLimitQuota) => ({
  type: 'rate-limit',
  name: quota.name,
  path: quota.mount_path + quota.path_suffix,
  role: quota.role,
  rate: quota.rate,
  inheritable: quota.inheritable,
  interval: quota.interval,
  block_interval: quota.block_interval,
});

/** `sys/quotas/config` and `sys/quotas/rate-limit/:name`. */
export function quotaPaths(context: SecretsContext): PathSpec[] {
  const limiter = context.quotas;
  return [
    {
      pattern: 'quotas/config',
      summary: 'Quota settings: exempt paths and the rate-limit response headers.',
      sudo: true,
      fields: {
        rate_limit_exempt_paths: { type: 'commaStringSlice', description: 'Paths no rate limit applies to.', default: [] },
        enable_rate_limit_audit_logging: { type: 'bool', description: 'Audit refused requests.', default: false },
        enable_rate_limit_response_headers: { type: 'bool', description: 'Send X-Ratelimit-* and Retry-After.', default: false },
      },
      operations: {
        read: (): LogicalResponse => ({ data: { ...limiter.state().config } }),
        update: (request) => {
          const state = limiter.state();
          const config = { ...state.config };
          for (const name of [
            'rate_limit_exempt_paths',
            'enable_rate_limit_audit_logging',
            'enable_rate_limit_response_headers',
          ] as const) {
            if (request.fields.has(name)) Object.assign(config, { [name]: request.fields.get(name) });
          }
          limiter.save({ ...state, config });
          return undefined;
        },
      },
    },
    {
      pattern: 'quotas/rate-limit',
      summary: 'List rate-limit quotas.',
      sudo: true,
      operations: {
        list: () => {
          const keys = Object.keys(limiter.state().rateLimits).sort();
          if (keys.length === 0) throw notFound();
          return { data: { keys } };
        },
      },
    },
    {
      pattern: 'quotas/rate-limit/:name',
      summary: 'Create, read and delete a rate-limit quota.',
      sudo: true,
      fields: {
        path: { type: 'string', description: 'A mount (`kv/`), a path under one, or empty for every request.', default: '' },
        role: { type: 'string', description: 'A login role of an auth mount path.', default: '' },
        rate: { type: 'any', documentedAs: 'int', description: 'Requests allowed per interval.', default: 0 },
        interval: { type: 'duration', description: 'The window (default 1s).', default: 0 },
        block_interval: { type: 'duration', description: 'How long a client over the limit stays refused.', default: 0 },
        inheritable: { type: 'bool', description: 'Applies to child namespaces (no namespaces here).', default: false },
      },
      operations: {
        update: (request) => writeRateLimit(context, request),
        read: (request) => {
          const quota = limiter.state().rateLimits[request.params.name ?? ''];
          if (!quota) throw notFound();
          return { data: quotaWire(quota) };
        },
        delete: (request) => {
          const name = request.params.name ?? '';
          const state = limiter.state();
          const { [name]: _removed, ...rest } = state.rateLimits;
          limiter.save({ ...state, rateLimits: rest });
          limiter.forget(name);
          return undefined;
        },
      },
    },
  ];
}
