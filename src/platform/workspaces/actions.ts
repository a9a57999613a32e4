import { Type, type TSchema } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { unprocessable } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { sendDocument, sendNoContent } from '../jsonapi/documents.js';
import { Attr, optionalResourceBody, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import { workspaceDocument, workspaceInclude } from './documents.js';
import { WORKSPACE_INCLUDES } from './view.js';

type ById = { Params: { id: string } };

const action = { params: params('id'), querystring: showQuery(WORKSPACE_INCLUDES) };
/**
 * A lock body in any of the forms clients send: the JSON:API envelope (the Go client, with
 * `"type": ""`), the plain `{"reason": "…"}` the API documentation shows, or no body at all (curl).
 * The envelope comes first, so a malformed body is reported against it.
 */
const LOCK_ENVELOPE = optionalResourceBody(['workspaces'], { allowEmptyType: true, attributes: { reason: Attr.string() } });
const PLAIN_LOCK = Type.Object({ reason: Type.Optional(Type.Union([Type.String(), Type.Null()])) }, { additionalProperties: false });
const LOCK_BODY = Type.Union([...(LOCK_ENVELOPE.anyOf as readonly TSchema[]), PLAIN_LOCK], { optionalBody: true });
const SSH_KEY_BODY = resourceBody(['workspaces'], { attributes: { id: Attr.string('an SSH key id, or null to unassign') } });

/** Lock, unlock, force-unlock, safe-delete and the SSH key relationship. */
export async function workspaceActionRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.workspaces;
  const locks = context.services.workspaceLocks;
  const byId = (request: FastifyRequest<ById>) => service.locate(request.principal, request.params.id);

  app.post<ById>('/workspaces/:id/actions/lock', { schema: { ...action, body: LOCK_BODY } }, async (request, reply) => {
    const include = workspaceInclude(context, request);
    const located = service.require(byId(request), 'can-lock');
    // The real client sends `{"data":{"type":"","attributes":{"reason":…}}}`; curl users often send nothing.
    let reason: string | null = null;
    const body = request.body as Record<string, unknown> | null | undefined;
    if (body && 'data' in body) {
      const input = readResource(body, ['workspaces'], { allowEmptyType: true });
      reason = new Attributes(input.attributes).string('reason', { nullable: true }) ?? null;
    } else if (body) {
      reason = new Attributes(body, '').string('reason', { nullable: true }) ?? null;
    }
    return sendDocument(reply, 200, workspaceDocument(context, request, locks.lock(located, request.principal, reason), include));
  });

  app.post<ById>('/workspaces/:id/actions/unlock', { schema: action }, async (request, reply) => {
    const include = workspaceInclude(context, request);
    return sendDocument(reply, 200, workspaceDocument(context, request, locks.unlock(byId(request), request.principal), include));
  });

  app.post<ById>('/workspaces/:id/actions/force-unlock', { schema: action }, async (request, reply) => {
    const include = workspaceInclude(context, request);
    return sendDocument(reply, 200, workspaceDocument(context, request, locks.forceUnlock(byId(request)), include));
  });

  app.post<ById>('/workspaces/:id/actions/safe-delete', { schema: { params: params('id') } }, async (request, reply) => {
    service.safeDestroy(byId(request));
    return sendNoContent(reply);
  });

  app.post(
    '/organizations/:org/workspaces/:name/actions/safe-delete',
    { schema: { params: params('org', 'name') } },
    async (request, reply) => {
      service.safeDestroy(service.locateByName(request.principal, request.params.org, request.params.name));
      return sendNoContent(reply);
    },
  );

  // The key id travels in `data.attributes.id`: a string assigns that key, null unassigns.
  app.patch<ById>('/workspaces/:id/relationships/ssh-key', { schema: { ...action, body: SSH_KEY_BODY } }, async (request, reply) => {
    const include = workspaceInclude(context, request);
    const located = service.require(byId(request), 'can-update');
    const attributes = readResource(request.body, ['workspaces']).attributes;
    if (!('id' in attributes))
      throw unprocessable('data.attributes.id is required (an SSH key id, or null to unassign)', '/data/attributes/id');
    const keyId = new Attributes(attributes).string('id', { nullable: true }) ?? null;
    return sendDocument(reply, 200, workspaceDocument(context, request, service.assignSshKey(located, keyId), include));
  });
}
