import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import { bulkNames } from './bulk.js';
import { isoTimestamp } from '../core/clock.js';
import { OrganizationService } from '../platform/organizations/service.js';
import { entitlements } from '../platform/organizations/resource.js';
import { deliverRunTask, listDeliveries, type TriggerOptions } from '../platform/run-tasks/delivery.js';
import type { PlatformContext } from '../platform/context.js';
import type { OrganizationSettings } from '../store/tables.js';

type Body = Record<string, unknown>;
type Handler = (request: FastifyRequest, reply: FastifyReply) => unknown;

/** The control plane answers `{"error": "…"}`; services throw ApiError, so translate at the edge. */
function guarded(handler: Handler): Handler {
  return async (request, reply) => {
    try {
      return await handler(request, reply);
    } catch (error) {
      if (error instanceof ApiError) return reply.code(error.status).send({ error: error.detail });
      throw error;
    }
  };
}

function objectBody(request: FastifyRequest): Body {
  const body = request.body ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new ApiError(400, 'the body must be a JSON object');
  return body as Body;
}

function organizationNamed(organizations: OrganizationService, name: string) {
  const organization = organizations.byName(name);
  if (!organization) throw new ApiError(404, `no organization ${name}`);
  return organization;
}

function settingsChanges(body: Body): OrganizationSettings {
  const changes: OrganizationSettings = {};
  if ('membership-limit' in body) {
    const limit = body['membership-limit'];
    if (limit !== null && !(typeof limit === 'number' && Number.isInteger(limit) && limit >= 1)) {
      throw new ApiError(400, '"membership-limit" must be a positive integer or null');
    }
    changes.membershipLimit = limit;
  }
  if ('entitlements' in body) {
    const given = body['entitlements'];
    const valid =
      typeof given === 'object' &&
      given !== null &&
      !Array.isArray(given) &&
      Object.values(given).every((value) => typeof value === 'boolean' || typeof value === 'number');
    if (!valid) throw new ApiError(400, '"entitlements" must be an object of booleans and numbers, e.g. {"run-tasks": false}');
    changes.entitlements = given as Record<string, boolean | number>;
  }
  if ('auto-accept-invitations' in body) {
    if (typeof body['auto-accept-invitations'] !== 'boolean') throw new ApiError(400, '"auto-accept-invitations" must be a boolean');
    changes.autoAcceptInvitations = body['auto-accept-invitations'];
  }
  return changes;
}

function triggerOptions(body: Body): TriggerOptions {
  const text = (name: string): string | undefined => {
    const value = body[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || value === '') throw new ApiError(400, `"${name}" must be a non-empty string`);
    return value;
  };
  const speculative = body['is-speculative'];
  if (speculative !== undefined && typeof speculative !== 'boolean') throw new ApiError(400, '"is-speculative" must be a boolean');
  const options: TriggerOptions = {};
  const pairs: [keyof TriggerOptions, string][] = [
    ['stage', 'stage'],
    ['runId', 'run-id'],
    ['runMessage', 'run-message'],
    ['runCreatedBy', 'run-created-by'],
    ['configurationVersionId', 'configuration-version-id'],
  ];
  for (const [key, name] of pairs) {
    const value = text(name);
    if (value !== undefined) (options as Record<string, unknown>)[key] = value;
  }
  if (speculative !== undefined) options.isSpeculative = speculative;
  return options;
}

/**
 * Control-plane levers for the platform areas of issue 3: organization settings that have no API
 * (membership limit, entitlements, auto-accepting invitations), accepting an invitation, bulk
 * workspaces for benchmarks, and delivering a run task's stage payload for real.
 */
export async function platformFixtureRoutes(app: FastifyInstance, runtime: PlatformContext): Promise<void> {
  const { db } = runtime.store;
  const memberships = runtime.services.memberships;
  const organizations = runtime.services.organizations;
  const workspaces = runtime.services.workspaces;

  app.patch<{ Params: { org: string } }>(
    '/organizations/:org',
    guarded(async (request) => {
      const organization = organizationNamed(organizations, (request.params as { org: string }).org);
      const updated = organizations.changeSettings(organization, settingsChanges(objectBody(request)));
      const { settings } = updated;
      return {
        organization: organization.name,
        'membership-limit': settings.membershipLimit ?? null,
        'auto-accept-invitations': settings.autoAcceptInvitations ?? false,
        entitlements: entitlements(updated),
      };
    }),
  );

  app.post(
    '/organization-memberships/:id/accept',
    guarded(async (request) => {
      const membership = memberships.accept((request.params as { id: string }).id);
      return { id: membership.id, status: membership.status };
    }),
  );

  // Many workspaces in one transaction, through the same row defaults as the API's create.
  app.post(
    '/organizations/:org/workspaces/bulk',
    guarded(async (request, reply) => {
      const organization = organizationNamed(organizations, (request.params as { org: string }).org);
      const names = bulkNames(objectBody(request), 'ws');
      const at = workspaces.createMany(organization, names);
      return reply.code(201).send({
        organization: organization.name,
        created: names.length,
        first: names[0],
        last: names[names.length - 1],
        'created-at': isoTimestamp(at),
      });
    }),
  );

  // What earlier triggers delivered and what the receivers answered, newest first.
  app.get(
    '/run-tasks/:id/deliveries',
    guarded(async (request) => {
      const rows = listDeliveries(db, (request.params as { id: string }).id);
      return {
        deliveries: rows.map((row) => ({
          id: row.id,
          stage: row.stage,
          'run-id': row.runId,
          url: row.url,
          signed: row.signed,
          'response-status': row.responseStatus,
          'response-body': row.responseExcerpt,
          error: row.error,
          'delivered-at': isoTimestamp(row.createdAt),
          // The task service's answer at the payload's callback URL (triggered deliveries only).
          callback: row.callbackStatus
            ? {
                status: row.callbackStatus,
                message: row.callbackMessage,
                'answered-at': row.callbackAt ? isoTimestamp(row.callbackAt) : null,
              }
            : null,
        })),
      };
    }),
  );

  app.post(
    '/run-tasks/:id/trigger',
    guarded(async (request) => {
      const origin = `${request.protocol}://${request.host}`;
      return deliverRunTask(db, runtime.clock, (request.params as { id: string }).id, origin, triggerOptions(objectBody(request)));
    }),
  );
}
