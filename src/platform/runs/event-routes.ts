import { isoTimestamp } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { lockerOf } from '../workspaces/locking.js';
import type { Located } from '../workspaces/service.js';
import * as repo from './repo.js';
import { actorRelationship } from './resource.js';

const COMMENT_BODY = resourceBody(['comments'], { attributes: { body: Attr.string() } });

type ById = { Params: { id: string } };

function eventResource(event: repo.RunEventRow, located: Located): ResourceObject {
  return {
    id: event.id,
    type: 'run-events',
    attributes: { action: event.action, 'created-at': isoTimestamp(event.createdAt), description: event.description },
    relationships: { actor: actorRelationship(event.actor, located.organization), comment: { data: null } },
  };
}

function commentResource(comment: repo.RunCommentRow, located: Located): ResourceObject {
  return {
    id: comment.id,
    type: 'comments',
    attributes: { body: comment.body, 'created-at': isoTimestamp(comment.createdAt) },
    relationships: {
      'run-event': { data: null },
      'created-by': actorRelationship(comment.createdBy, located.organization),
    },
    links: { self: `/api/v2/comments/${comment.id}` },
  };
}

/** What happened to a run (`run-events`, the CLI reads them for warnings) and the comments on it. */
export async function runEventRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.runs;
  const { db } = context.store;

  app.get<ById>(
    '/runs/:id/run-events',
    { schema: { params: params('id'), querystring: listQuery({ includes: ['actor', 'comment'] }) } },
    async (request, reply) => {
      const { run, located } = service.locate(request.principal, request.params.id);
      const page = readPage(request.query as Record<string, unknown>);
      const { items, total } = paginate(repo.eventsOf(db, run.id), page);
      return sendDocument(reply, 200, listDocument(request, { items: items.map((event) => eventResource(event, located)), total, page }));
    },
  );
  app.get<ById>(
    '/run-events/:id',
    { schema: { params: params('id'), querystring: showQuery(['actor', 'comment']) } },
    async (request, reply) => {
      const event = repo.findEvent(db, request.params.id);
      if (!event) throw NOT_FOUND;
      const { located } = service.locate(request.principal, event.runId);
      return sendDocument(reply, 200, singleDocument(eventResource(event, located)));
    },
  );

  app.get<ById>('/runs/:id/comments', { schema: { params: params('id'), querystring: listQuery() } }, async (request, reply) => {
    const { run, located } = service.locate(request.principal, request.params.id);
    const page = readPage(request.query as Record<string, unknown>);
    const { items, total } = paginate(repo.commentsOf(db, run.id), page);
    return sendDocument(
      reply,
      200,
      listDocument(request, { items: items.map((comment) => commentResource(comment, located)), total, page }),
    );
  });
  app.post<ById>('/runs/:id/comments', { schema: { params: params('id'), body: COMMENT_BODY } }, async (request, reply) => {
    const { run, located } = service.locate(request.principal, request.params.id);
    service.workspaces.require(located, 'can-queue-run');
    const body = new Attributes(readResource(request.body, ['comments']).attributes).string('body', { required: true }) as string;
    const comment = { id: newId('wsc'), runId: run.id, body, createdBy: lockerOf(request.principal), createdAt: context.clock.now() };
    repo.insertComment(db, comment);
    return sendDocument(reply, 201, singleDocument(commentResource(comment, located)));
  });
  app.get<ById>('/comments/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const comment = repo.findComment(db, request.params.id);
    if (!comment) throw NOT_FOUND;
    const { located } = service.locate(request.principal, comment.runId);
    return sendDocument(reply, 200, singleDocument(commentResource(comment, located)));
  });
}
