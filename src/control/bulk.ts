import type { FastifyInstance } from 'fastify';
import { ApiError } from '../core/errors.js';
import { isoTimestamp } from '../core/clock.js';
import type { PlatformContext, PlatformServices } from '../platform/context.js';

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

type Make = (platform: PlatformServices, organization: { id: string; name: string }, names: string[]) => void;

/** Each kind goes through its service, so bulk rows get the API's create defaults. */
const MAKERS: Record<string, Make> = {
  teams: (platform, { id }, names) =>
    platform.teams.createMany(
      id,
      names.map((name) => ({ name })),
    ),
  'run-tasks': (platform, { id }, names) =>
    platform.runTasks.createMany(
      id,
      names.map((name) => ({ name, url: 'https://run-tasks.invalid/hook' })),
    ),
  // A user per membership, active, named after the prefix (`<name>@bulk.invalid`).
  memberships: (platform, { id }, names) =>
    platform.memberships.addActiveMany(
      id,
      names.map((username) => ({ username, email: `${username}@bulk.invalid` })),
    ),
  // Audit-trail events (each names one made-up resource id), for long trails.
  'audit-events': (platform, organization, names) => platform.auditTrail.recordMany(organization, names),
};

const FALLBACK_PREFIX: Record<string, string> = { memberships: 'member', teams: 'team', 'run-tasks': 'task', 'audit-events': 'event' };

/**
 * `POST /_emulator/organizations/:org/{teams,run-tasks,memberships,audit-events}/bulk`: many rows in one
 * transaction, for benchmarks and tests of large lists (workspaces have their own, next door).
 */
export async function bulkRoutes(app: FastifyInstance, platform: PlatformContext): Promise<void> {
  for (const [kind, make] of Object.entries(MAKERS)) {
    app.post<{ Params: { org: string } }>(`/organizations/:org/${kind}/bulk`, async (request, reply) => {
      try {
        const organization = platform.services.organizations.byName(request.params.org);
        if (!organization) throw new ApiError(404, `no organization ${request.params.org}`);
        const names = bulkNames(request.body, FALLBACK_PREFIX[kind] ?? kind);
        const at = platform.clock.now();
        make(platform.services, organization, names);
        return reply.code(201).send({
          organization: organization.name,
          created: names.length,
          first: names[0],
          last: names[names.length - 1],
          'created-at': isoTimestamp(at),
        });
      } catch (error) {
        if (error instanceof ApiError) return reply.code(error.status).send({ error: error.detail });
        throw error;
      }
    });
  }
}
