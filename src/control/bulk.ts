import type { FastifyInstance } from 'fastify';
import { ApiError } from '../core/errors.js';
import { isoTimestamp } from '../core/clock.js';
import { newId } from '../core/ids.js';
import * as organizationsRepo from '../platform/organizations/repo.js';
import { inSlices } from '../platform/sql-slices.js';
import type { Runtime } from '../runtime.js';
import type { Tx } from '../store/store.js';
import { organizationMemberships, runTasks, teams, users } from '../store/tables.js';

/** The most rows one bulk call makes: enough for the bench's 100,000-row lists. */
export const BULK_LIMIT = 100_000;
const PREFIX = /^[A-Za-z0-9_-]{1,60}$/;

/** `{"count": N, "prefix": "…"}` read and checked; the names are `<prefix>-<zero-padded number>`. */
export function bulkNames(body: unknown, fallbackPrefix: string): string[] {
  const fields = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const count = fields['count'];
  const prefix = fields['prefix'] ?? fallbackPrefix;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > BULK_LIMIT) {
    throw new ApiError(400, `"count" must be an integer from 1 to ${BULK_LIMIT}`);
  }
  if (typeof prefix !== 'string' || !PREFIX.test(prefix))
    throw new ApiError(400, '"prefix" may contain only letters, numbers, "-" and "_" (at most 60)');
  const width = String(count).length;
  return Array.from({ length: count }, (_, index) => `${prefix}-${String(index + 1).padStart(width, '0')}`);
}

type Make = (tx: Tx, organizationId: string, names: string[], at: Date) => void;

/** Rows each kind needs, with the same defaults as the API's create where the API has any. */
const MAKERS: Record<string, Make> = {
  teams: (tx, organizationId, names, at) => {
    for (const slice of inSlices(names)) {
      tx.insert(teams)
        .values(slice.map((name) => ({ id: newId('team'), organizationId, name, visibility: 'organization', createdAt: at })))
        .run();
    }
  },
  'run-tasks': (tx, organizationId, names, at) => {
    for (const slice of inSlices(names)) {
      const rows = slice.map((name) => ({
        id: newId('task'),
        organizationId,
        name,
        url: 'https://run-tasks.invalid/hook',
        category: 'task',
        enabled: true,
        createdAt: at,
      }));
      tx.insert(runTasks).values(rows).run();
    }
  },
  // A user per membership, active, named after the prefix (`<name>@bulk.invalid`).
  memberships: (tx, organizationId, names, at) => {
    for (const slice of inSlices(names)) {
      const made = slice.map((name) => ({ id: newId('user'), username: name, email: `${name}@bulk.invalid`, createdAt: at }));
      tx.insert(users).values(made).run();
      tx.insert(organizationMemberships)
        .values(made.map((user) => ({ id: newId('ou'), organizationId, userId: user.id, status: 'active' as const, createdAt: at })))
        .run();
    }
  },
};

/**
 * `POST /_emulator/organizations/:org/{teams,run-tasks,memberships}/bulk`: many rows in one
 * transaction, for benchmarks and tests of large lists (workspaces have their own, next door).
 */
export async function bulkRoutes(app: FastifyInstance, runtime: Runtime): Promise<void> {
  const { db } = runtime.store;
  for (const [kind, make] of Object.entries(MAKERS)) {
    app.post<{ Params: { org: string } }>(`/organizations/:org/${kind}/bulk`, async (request, reply) => {
      try {
        const organization = organizationsRepo.findOrganizationByName(db, request.params.org);
        if (!organization) throw new ApiError(404, `no organization ${request.params.org}`);
        const names = bulkNames(request.body, kind === 'memberships' ? 'member' : kind === 'teams' ? 'team' : 'task');
        const at = runtime.clock.now();
        db.transaction((tx) => make(tx, organization.id, names, at));
        return reply
          .code(201)
          .send({
            organization: organization.name,
            created: names.length,
            first: names[0],
            last: names[names.length - 1],
            'created-at': isoTimestamp(at),
          });
      } catch (error) {
        if (error instanceof ApiError) return reply.code(error.status).send({ error: error.detail });
        // A name already taken (unique index) is the caller's mistake, not a server fault.
        if (error instanceof Error && /UNIQUE constraint failed/.test(error.message))
          return reply.code(409).send({ error: `some ${kind} names are already taken` });
        throw error;
      }
    });
  }
}
