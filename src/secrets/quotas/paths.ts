import { badRequest, notFound } from '../../core/errors.js';
import type { SecretsContext } from '../context.js';
import type { HandlerRequest, LogicalResponse, PathSpec } from '../framework/types.js';
import type { RateLimitQuota } from './rate-limiter.js';

/** A quota's path as stored: empty (global), a mount with its trailing slash, or a path under one. */
function normalisedPath(context: SecretsContext, requested: string): string {
  const path = requested.trim().replace(/^\/+/, '');
  if (path === '') return '';
  const isAuth = path.startsWith('auth/');
  const table = isAuth ? context.authMounts : context.mounts;
  const rest = isAuth ? path.slice('auth/'.length) : path;
  const mount = table.longestPrefix(rest.replace(/\/$/, ''));
  if (!mount) throw badRequest(`invalid mount path "${path}"`);
  const mountPath = `${isAuth ? 'auth/' : ''}${mount.path}`;
  return `${path}/` === mountPath ? mountPath : path;
}

function writeRateLimit(context: SecretsContext, request: HandlerRequest): undefined {
  const name = request.params.name ?? '';
  const { fields } = request;
  const rate = Number(fields.get<unknown>('rate'));
  if (!Number.isFinite(rate) || rate <= 0) throw badRequest("'rate' is invalid");
  const interval = fields.get<number>('interval') || 1;
  const blockInterval = fields.get<number>('block_interval');
  if (blockInterval < 0) throw badRequest("'block' is invalid");
  const limiter = context.quotas;
  const state = limiter.state();
  const existing = state.rateLimits[name];
  const path = fields.has('path') ? normalisedPath(context, fields.get<string>('path')) : (existing?.path ?? '');
  const role = fields.has('role') ? fields.get<string>('role') : (existing?.role ?? '');
  if (role !== '' && !path.startsWith('auth/')) throw badRequest('role can only be set on auth mount paths');
  const clash = Object.values(state.rateLimits).find((quota) => quota.name !== name && quota.path === path && quota.role === role);
  if (clash) throw badRequest(`quota rule with similar properties exists under the name "${clash.name}"`);
  const quota: RateLimitQuota = {
    name,
    path,
    role,
    rate,
    interval,
    block_interval: blockInterval,
    inheritable: fields.has('inheritable') ? fields.get<boolean>('inheritable') : (existing?.inheritable ?? false),
  };
  limiter.save({ ...state, rateLimits: { ...state.rateLimits, [name]: quota } });
  limiter.forget(name);
  return undefined;
}

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
          return { data: { ...quota, type: 'rate-limit' } };
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
