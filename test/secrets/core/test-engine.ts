import type { EngineFactory } from '../../../src/secrets/context.js';
import type { FieldSpec } from '../../../src/secrets/framework/types.js';
import { ENGINES } from '../../../src/secrets/plugin.js';

/**
 * A test-only engine that hands out leased "credentials" and records revocations. Names decide
 * how revocation behaves: `flaky*` fails twice then succeeds, `broken*` fails until its name is
 * added to `repaired` (the database came back).
 */
export const TEST_ENGINE = 'leasetest';

/**
 * What the engine's "database" saw: the leases it revoked, the attempts per lease, and the names
 * whose database came back. One set per {@link withTestEngine} call, so two servers in one worker
 * never see each other's records; a restart that should find the same database passes it on.
 */
export interface LeaseRecords {
  revokedLeases: string[];
  revokeAttempts: Map<string, number>;
  repaired: Set<string>;
}

const FIELDS: Record<string, FieldSpec> = {
  name: { type: 'string', description: 'Credential name.' },
  ttl: { type: 'duration', description: 'Lease TTL.', default: 0 },
  max_ttl: { type: 'duration', description: 'Lease max TTL.', default: 0 },
  renewable: { type: 'bool', description: 'Renewable lease.', default: true },
};

const leaseTestEngine =
  (records: LeaseRecords): EngineFactory =>
  (context) => ({
    type: TEST_ENGINE,
    paths: [
      {
        pattern: 'creds/:name',
        summary: 'A leased credential.',
        fields: FIELDS,
        operations: {
          read: (request) => {
            const name = request.fields.get<string>('name');
            const { lease, warnings } = context.leases.create({
              mount: request.mount,
              path: request.path,
              tokenId: request.token?.id ?? null,
              ttl: request.fields.get<number>('ttl'),
              maxTtl: request.fields.get<number>('max_ttl'),
              renewable: request.fields.get<boolean>('renewable'),
              revokeData: { name },
            });
            return { data: { username: `user-${name}` }, lease, warnings };
          },
        },
      },
    ],
    revokeLease: (lease) => {
      const attempt = (records.revokeAttempts.get(lease.id) ?? 0) + 1;
      records.revokeAttempts.set(lease.id, attempt);
      const name = String(lease.revokeData['name']);
      if (name.startsWith('broken') && !records.repaired.has(name)) throw new Error('database unreachable');
      if (name.startsWith('flaky') && attempt <= 2) throw new Error(`database unreachable (attempt ${attempt})`);
      records.revokedLeases.push(lease.id);
    },
  });

/**
 * `startServer`'s options for a server that can mount the test engine besides every shipped one
 * (`engines`), and the records its engine keeps (`records`: fresh ones unless given).
 */
export function withTestEngine(records: LeaseRecords = { revokedLeases: [], revokeAttempts: new Map(), repaired: new Set() }): {
  engines: ReadonlyMap<string, EngineFactory>;
  records: LeaseRecords;
} {
  return { engines: new Map([...ENGINES, [TEST_ENGINE, leaseTestEngine(records)]]), records };
}
