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
