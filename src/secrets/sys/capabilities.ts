import { badRequest } from '../../core/errors.js';
import { CAPABILITY_BITS, CAPABILITY_ORDER } from '../acl/policy.js';
import type { SecretsContext } from '../context.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../framework/types.js';
import type { TokenEntry } from '../tokens/token-store.js';

const PATHS_FIELDS: Record<string, FieldSpec> = {
  paths: { type: 'commaStringSlice', description: 'Paths to report on.' },
  path: { type: 'commaStringSlice', description: 'Older name of `paths`.' },
};

/** `sys/leader` of a server without high availability, as the development server answers it. */
const LEADER = {
  ha_enabled: false,
  is_self: false,
  active_time: '0001-01-01T00:00:00Z',
  leader_address: '',
  leader_cluster_address: '',
  performance_standby: false,
  performance_standby_last_remote_wal: 0,
};

/** `sys/capabilities…` and `sys/leader`: what a token may do on paths, and who leads (this server, alone). */
export function capabilityPaths(context: SecretsContext): PathSpec[] {
  const { acl, tokens } = context;

  /** Capability names on one path: `root` for root tokens, `deny` when nothing (or a deny) is granted. */
  const capabilitiesOn = (token: TokenEntry, path: string): string[] => {
    const compiled = acl.aclFor(token);
    if (compiled.isRoot) return ['root'];
    const granted = compiled.capabilities(path.replace(/^\/+/, ''));
    if (granted === 0 || granted & CAPABILITY_BITS.deny) return ['deny'];
    // Reported in alphabetical order, as the real service sorts them.
    return CAPABILITY_ORDER.filter((name) => granted & CAPABILITY_BITS[name]).sort();
  };

  /** One entry per path, plus `capabilities` when one path was asked (the older response shape). */
  const report = (token: TokenEntry, request: HandlerRequest): LogicalResponse => {
    // The CLI sends both names with the same path; `path` counts only when `paths` is empty.
    const named = (field: string) => (request.fields.has(field) ? request.fields.get<string[]>(field) : []);
    const paths = named('paths').length > 0 ? named('paths') : named('path');
    if (paths.length === 0) throw badRequest('missing paths');
    const data: Record<string, unknown> = Object.fromEntries(paths.map((path) => [path, capabilitiesOn(token, path)]));
    if (paths.length === 1) data['capabilities'] = data[paths[0] as string];
    return { data, dataAtTopLevel: true };
  };

  return [
    {
      pattern: 'leader',
      summary: 'High-availability status: a single active server.',
      unauthenticated: ['read'],
      neverWrapped: true,
      operations: { read: () => ({ raw: { status: 200, contentType: 'application/json', body: `${JSON.stringify(LEADER)}\n` } }) },
    },
    {
      pattern: 'capabilities-self',
      summary: "The calling token's capabilities on paths.",
      fields: PATHS_FIELDS,
      operations: { update: (request) => report(request.token as TokenEntry, request) },
    },
    {
      pattern: 'capabilities',
      summary: "Another token's capabilities on paths.",
      fields: { ...PATHS_FIELDS, token: { type: 'string', description: 'The token to report on.' } },
      operations: {
        update: (request) => {
          const token = tokens.store.lookup(request.fields.get<string | undefined>('token'));
          if (!token) throw badRequest('invalid token');
          return report(token, request);
        },
      },
    },
    {
      pattern: 'capabilities-accessor',
      summary: "A token's capabilities on paths, by accessor.",
      fields: { ...PATHS_FIELDS, accessor: { type: 'string', description: 'Accessor of the token to report on.' } },
      operations: {
        update: (request) => {
          const token = tokens.store.byAccessor(request.fields.get<string | undefined>('accessor') ?? '');
          if (!token || !tokens.store.isLive(token)) throw badRequest('invalid accessor');
          return report(token, request);
        },
      },
    },
  ];
}
