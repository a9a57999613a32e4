import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../core/clock.js';
import type { Db } from '../../store/store.js';
import type { Principal } from '../auth/principal.js';
import { findOrganizationById, findOrganizationByName } from '../organizations/repo.js';
import { isOwnedId, organizationOfId } from './owners.js';
import { insertAuditEvent } from './repo.js';

export const WRITES: ReadonlySet<string> = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
const ORGANIZATION_PARAMS = ['org', 'organization', 'organization_name', 'organizationName'];

/** What the recorder keeps about a request between its hooks. */
interface Pending {
  organizationId?: string;
  payload?: string;
}
/** Bodies larger than this are not parsed for the organization (the path or token names it). */
const PARSED_BODY_LIMIT = 1_000_000;
const pending = new WeakMap<FastifyRequest, Pending>();

type Params = Record<string, string | undefined>;

function json(text: string | undefined): Record<string, unknown> | undefined {
  if (!text || text.length > PARSED_BODY_LIMIT) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const record = (value: unknown) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined);

function accessor(principal: Principal): { id: string; description: string } {
  if (principal.kind === 'user') return { id: principal.user.id, description: principal.user.username };
  if (principal.kind === 'team') return { id: principal.team.id, description: principal.team.name };
  return { id: principal.organization.id, description: principal.organization.name };
}

/**
 * The audit trail's one entry point: every successful write through `/api/v2` becomes an event
 * in the organization it concerns, found from the path, the response's organization, the
 * caller's token, or (looked up before the write runs) the owner of the id in its path.
 */
export function auditRecorder(db: Db, clock: Clock) {
  const organizationOf = (request: FastifyRequest, body: Record<string, unknown> | undefined): string | undefined => {
    const params = (request.params ?? {}) as Params;
    for (const name of ORGANIZATION_PARAMS) {
      const value = params[name];
      if (value) return findOrganizationByName(db, value)?.id;
    }
    const remembered = pending.get(request)?.organizationId;
    if (remembered) return remembered;
    const data = record(body?.['data']);
    if (data?.['type'] === 'organizations' && typeof data['id'] === 'string') return findOrganizationByName(db, data['id'])?.id;
    const related = record(record(record(data?.['relationships'])?.['organization'])?.['data'])?.['id'];
    if (typeof related === 'string') return findOrganizationByName(db, related)?.id;
    const principal = request.principal as Principal | null;
    if (principal?.kind === 'organization') return principal.organization.id;
    if (principal?.kind === 'team') return principal.team.organizationId;
    return undefined;
  };

  return {
    /**
     * A write addressed by id names no organization in its path, and a delete leaves no body to
     * read it from: the owner of the first id-shaped path parameter is looked up before it runs.
     */
    preHandler: inline((request: FastifyRequest) => {
      if (!WRITES.has(request.method)) return;
      const params = (request.params ?? {}) as Params;
      if (ORGANIZATION_PARAMS.some((name) => params[name])) return;
      for (const value of Object.values(params)) {
        const organizationId = value ? organizationOfId(db, value) : undefined;
        if (organizationId) {
          pending.set(request, { organizationId });
          return;
        }
      }
    }),
    onSend: (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) => {
      // Only a successful write's answer is kept (reads are most requests: they skip the copy).
      if (WRITES.has(request.method) && reply.statusCode < 400) {
        // Documents go out as strings (see sendDocument); a Buffer body is read as UTF-8.
        const text =
          Buffer.isBuffer(payload) && payload.length <= PARSED_BODY_LIMIT
            ? payload.toString('utf8')
            : typeof payload === 'string'
              ? payload
              : undefined;
        if (text !== undefined) pending.set(request, { ...pending.get(request), payload: text });
      }
      done(null, payload);
    },
    onResponse: inline((request: FastifyRequest, reply: FastifyReply) => {
      const principal = request.principal as Principal | null;
      if (!WRITES.has(request.method) || reply.statusCode >= 400 || !principal) return;
      // Issuing the audit-trail token is how one starts reading the trail, not a change to it.
      if ((request.query as Record<string, unknown> | undefined)?.['token'] !== undefined) return;
      const body = json(pending.get(request)?.payload);
      const organizationId = organizationOf(request, body);
      if (!organizationId || !findOrganizationById(db, organizationId)) return;
      const data = record(body?.['data']);
      const params = (request.params ?? {}) as Params;
      const path = (request.routeOptions.url ?? request.url).split('?')[0] ?? '';
      const segments = path.split('/').filter((segment) => segment !== '' && !segment.startsWith(':'));
      const actionAt = segments.indexOf('actions');
      const action =
        actionAt >= 0 && segments[actionAt + 1]
          ? segments[actionAt + 1]!
          : { POST: 'create', PATCH: 'update', PUT: 'update', DELETE: 'destroy' }[request.method]!;
      const type = typeof data?.['type'] === 'string' ? data['type'] : (segments[actionAt >= 0 ? actionAt - 1 : segments.length - 1] ?? '');
      const who = accessor(principal);
      insertAuditEvent(db, {
        id: randomUUID(),
        organizationId,
        timestamp: clock.now(),
        accessorId: who.id,
        accessorDescription: who.description,
        accessorType: 'Client',
        requestId: randomUUID(),
        resourceId:
          typeof data?.['id'] === 'string'
            ? data['id']
            : (Object.values(params)
                .reverse()
                .find((value) => value !== undefined && isOwnedId(value)) ??
              params['id'] ??
              params['organization'] ??
              path),
        resourceType: type.replace(/s$/, '').replace(/-/g, '_'),
        action,
      });
    }),
  };
}

/**
 * A synchronous hook in Fastify's callback form: these run on every request and never await, so
 * an async hook's promise and microtask buy nothing. A throw reaches Fastify as the hook's error,
 * as a rejected promise would.
 */
function inline(hook: (request: FastifyRequest, reply: FastifyReply) => void) {
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    try {
      hook(request, reply);
    } catch (error) {
      return done(error as Error);
    }
    done();
  };
}
