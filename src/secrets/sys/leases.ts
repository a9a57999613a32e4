import { badRequest, notFound } from '../../core/errors.js';
import type { SecretsContext } from '../context.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../framework/types.js';

const LEASE_FIELDS: Record<string, FieldSpec> = {
  lease_id: { type: 'string', description: 'The lease to act on.' },
  url_lease_id: { type: 'string', description: 'The lease id given as a path suffix instead.' },
};

const RENEW_FIELDS: Record<string, FieldSpec> = {
  ...LEASE_FIELDS,
  increment: { type: 'duration', description: 'Requested extension; null or absent means the lease default.' },
};

const REVOKE_FIELDS: Record<string, FieldSpec> = {
  ...LEASE_FIELDS,
  sync: { type: 'bool', description: 'Revoke before answering (204); false answers 202 at once.', default: true },
};

const IRREVOCABLE_FIELDS: Record<string, FieldSpec> = {
  type: { type: 'string', description: 'Which leases: `irrevocable` (the only kind listed).', default: '' },
  include_child_namespaces: { type: 'bool', description: 'Accepted for compatibility (there are no namespaces).', default: false },
  limit: { type: 'string', description: 'At most this many (default 10000), or `none` for all.', default: '' },
};

/** The real service's cap on an irrevocable listing without `limit=none`, and its warning past it. */
const MAX_IRREVOCABLE_LISTED = 10_000;
const MAX_IRREVOCABLE_WARNING =
  'Command halted because many irrevocable leases were found. To emit the entire list, re-run the command with force set true.';

/** `limit` as the real service reads it: empty for the default, `none`, or a positive integer. */
function irrevocableLimit(raw: string): number {
  if (raw === '') return MAX_IRREVOCABLE_LISTED;
  if (raw.toLowerCase() === 'none') return Number.POSITIVE_INFINITY;
  if (!/^[+-]?\d+$/.test(raw)) throw badRequest(`invalid 'limit' provided: strconv.Atoi: parsing ${JSON.stringify(raw)}: invalid syntax`);
  const limit = Number(raw);
  if (limit < 1) throw badRequest("limit must be 'none' or a positive integer");
  return limit;
}

/** The body's `lease_id` first, else the path suffix (`sys/leases/renew/<id>`). */
function leaseIdOf(request: HandlerRequest): string {
  const id = request.fields.get<string | undefined>('lease_id') || request.params['url_lease_id'] || '';
  if (id === '') throw badRequest('lease_id must be specified');
  return id.replace(/^\/+/, '');
}

/**
 * `sys/leases/…` and the legacy `sys/renew`, `sys/revoke`, `sys/revoke-prefix`: lease lookup,
 * renewal and revocation. Prefix revocation and listing are root-protected (sudo).
 */
export function leasePaths(context: SecretsContext): PathSpec[] {
  const { leases } = context;

  const lookup = (request: HandlerRequest): LogicalResponse => {
    const id = request.fields.get<string | undefined>('lease_id') ?? '';
    if (id === '') throw badRequest('lease_id must be specified');
    const lease = leases.get(id.replace(/^\/+/, ''));
    if (!lease) throw badRequest('invalid lease');
    return {
      data: {
        id: lease.id,
        issue_time: lease.issuedAt.toISOString(),
        expire_time: lease.expiresAt.toISOString(),
        last_renewal: lease.lastRenewedAt ? lease.lastRenewedAt.toISOString() : null,
        renewable: leases.isRenewable(lease),
        ttl: leases.remainingSeconds(lease),
      },
    };
  };

  const renew = async (request: HandlerRequest): Promise<LogicalResponse> => {
    const increment = request.fields.has('increment') ? request.fields.get<number>('increment') : undefined;
    const { lease, warnings } = await leases.renew(leaseIdOf(request), increment);
    return { data: null, lease, warnings };
  };

  const revoke = async (request: HandlerRequest): Promise<LogicalResponse | undefined> => {
    const id = leaseIdOf(request);
    if (!request.fields.get<boolean>('sync')) {
      // Asynchronous revocation: the scheduler does it now, and a failure is retried from there.
      void leases.revoke(id).catch(() => undefined);
      return { raw: { status: 202, contentType: 'application/json', body: '' } };
    }
    await leases.revoke(id);
    return undefined;
  };

  /** The accessor of the mount a lease came from (`mount_id` in the listing), or '' once it is gone. */
  const accessorOf = (mountUuid: string) =>
    [...context.mounts.all(), ...context.authMounts.all()].find((mount) => mount.uuid === mountUuid)?.accessor ?? '';
  const irrevocableOnly = (request: HandlerRequest) => request.fields.get<string>('type').toLowerCase() === 'irrevocable';

  const listIrrevocable = (request: HandlerRequest): LogicalResponse | undefined => {
    if (!irrevocableOnly(request)) return undefined;
    const limit = irrevocableLimit(request.fields.get<string>('limit'));
    const all = leases.irrevocable();
    const shown = all.slice(0, Math.min(limit, all.length));
    return {
      data: {
        lease_count: shown.length,
        leases: shown.map((lease) => ({ lease_id: lease.id, mount_id: accessorOf(lease.mountUuid), error: lease.lastError ?? 'unknown' })),
      },
      warnings: shown.length < all.length && limit === MAX_IRREVOCABLE_LISTED ? [MAX_IRREVOCABLE_WARNING] : undefined,
    };
  };

  const countIrrevocable = (request: HandlerRequest): LogicalResponse | undefined => {
    if (!irrevocableOnly(request)) return undefined;
    const counts: Record<string, number> = {};
    const all = leases.irrevocable();
    for (const lease of all) counts[accessorOf(lease.mountUuid)] = (counts[accessorOf(lease.mountUuid)] ?? 0) + 1;
    return { data: { lease_count: all.length, counts } };
  };

  /** `revoke-prefix` (and `revoke-force`): leases under the prefix, and tokens when it is under `auth/`. */
  const revokePrefix =
    (force: boolean) =>
    async (request: HandlerRequest): Promise<LogicalResponse | undefined> => {
      const prefix = (request.params['prefix'] ?? '').replace(/^\/+/, '');
      const run = async () => {
        await leases.revokePrefix(prefix, force);
        if (prefix.startsWith('auth/')) await context.tokens.revokeUnderLeasePrefix(prefix.endsWith('/') ? prefix : `${prefix}/`);
      };
      if (!force && !request.fields.get<boolean>('sync')) {
        // Asynchronous: answered at once; a failure stays scheduled for retry by the lease manager.
        void run().catch(() => undefined);
        return { raw: { status: 202, contentType: 'application/json', body: '' } };
      }
      await run();
      return undefined;
    };

  const prefixPath = (pattern: string, force: boolean): PathSpec => ({
    pattern,
    summary: force
      ? 'Revoke every lease under a prefix, dropping those whose engine fails to revoke them (recovery).'
      : 'Revoke every lease under a prefix.',
    fields: {
      prefix: { type: 'string', description: 'The lease id prefix (in the URL).' },
      ...(force ? {} : { sync: REVOKE_FIELDS.sync as FieldSpec }),
    },
    sudo: true,
    operations: { update: revokePrefix(force) },
  });

  return [
    {
      pattern: 'leases',
      summary: 'Leases whose revocation ran out of retries (`type=irrevocable`), with their last error.',
      fields: IRREVOCABLE_FIELDS,
      operations: { read: listIrrevocable },
    },
    {
      pattern: 'leases/count',
      summary: 'How many leases are irrevocable (`type=irrevocable`), in all and per mount accessor.',
      fields: IRREVOCABLE_FIELDS,
      operations: { read: countIrrevocable },
    },
    {
      pattern: 'leases/lookup/:prefix*',
      summary: 'Lease ids under a prefix.',
      sudo: true,
      operations: {
        list: (request) => {
          const keys = leases.list(request.params['prefix'] ?? '');
          if (keys.length === 0) throw notFound();
          return { data: { keys } };
        },
      },
    },
    { pattern: 'leases/lookup', summary: "A lease's times and renewability.", fields: LEASE_FIELDS, operations: { update: lookup } },
    { pattern: 'leases/renew', summary: 'Renew a lease.', fields: RENEW_FIELDS, operations: { update: renew } },
    {
      pattern: 'leases/renew/:url_lease_id*',
      summary: 'Renew a lease named in the path.',
      fields: RENEW_FIELDS,
      operations: { update: renew },
    },
    { pattern: 'renew', summary: 'Renew a lease (legacy path).', fields: RENEW_FIELDS, operations: { update: renew } },
    {
      pattern: 'renew/:url_lease_id*',
      summary: 'Renew a lease named in the path (legacy).',
      fields: RENEW_FIELDS,
      operations: { update: renew },
    },
    { pattern: 'leases/revoke', summary: 'Revoke a lease.', fields: REVOKE_FIELDS, operations: { update: revoke } },
    {
      pattern: 'leases/revoke/:url_lease_id*',
      summary: 'Revoke a lease named in the path.',
      fields: REVOKE_FIELDS,
      operations: { update: revoke },
    },
    { pattern: 'revoke', summary: 'Revoke a lease (legacy path).', fields: REVOKE_FIELDS, operations: { update: revoke } },
    {
      pattern: 'revoke/:url_lease_id*',
      summary: 'Revoke a lease named in the path (legacy).',
      fields: REVOKE_FIELDS,
      operations: { update: revoke },
    },
    prefixPath('leases/revoke-prefix/:prefix*', false),
    prefixPath('revoke-prefix/:prefix*', false),
    prefixPath('leases/revoke-force/:prefix*', true),
    prefixPath('revoke-force/:prefix*', true),
  ];
}
