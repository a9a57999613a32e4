import type { EngineFactory } from '../../../src/secrets/context.js';
import type { FieldSpec } from '../../../src/secrets/framework/types.js';
import { ENGINES } from '../../../src/secrets/plugin.js';

/**
 * A test-only engine that hands out leased "credentials" and records revocations. Names decide
 * how revocation behaves: `flaky*` fails twice then succeeds, `broken*` fails until its name is
 * added to `repaired` (the database came back).
 */
export const TEST_ENGINE = 'leasetest';

export const revokedLeases: string[] = [];
export const revokeAttempts = new Map<string, number>();
export const repaired = new Set<string>();

const FIELDS: Record<string, FieldSpec> = {
  name: { type: 'string', description: 'Credential name.' },
  ttl: { type: 'duration', description: 'Lease TTL.', default: 0 },
  max_ttl: { type: 'duration', description: 'Lease max TTL.', default: 0 },
  renewable: { type: 'bool', description: 'Renewable lease.', default: true },
};

const leaseTestEngine: EngineFactory = (context) => ({
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
    const attempt = (revokeAttempts.get(lease.id) ?? 0) + 1;
    revokeAttempts.set(lease.id, attempt);
    const name = String(lease.revokeData['name']);
    if (name.startsWith('broken') && !repaired.has(name)) throw new Error('database unreachable');
    if (name.startsWith('flaky') && attempt <= 2) throw new Error(`database unreachable (attempt ${attempt})`);
    revokedLeases.push(lease.id);
  },
});

/** `startServer`'s options for a server that can mount the test engine besides every shipped one. */
export const WITH_TEST_ENGINE = { engines: new Map([...ENGINES, [TEST_ENGINE, leaseTestEngine]]) };
