import { isoTimestamp } from '../../core/clock.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { Located } from '../workspaces/service.js';
import type { RunCommentRow, RunEventRow } from './repo.js';
import { actorRelationship } from './resource.js';

const COMMENT_BODY = resourceBody(['comments'], { attributes: { body: Attr.string() } });

type ById = { Params: { id: string } };

function eventResource(event: RunEventRow, located: Located): ResourceObject {
  return {
    id: event.id,
    type: 'run-events',
    attributes: { action: event.action, 'created-at': isoTimestamp(event.createdAt), description: event.description },
    relationships: { actor: actorRelationship(event.actor, located.organization), comment: { data: null } },
  };
}

function commentResource(comment: RunCommentRow, located: Located): ResourceObject {
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
  const activity = context.services.runActivity;

  app.get<ById>(
    '/runs/:id/run-events',
    { schema: { params: params('id'), querystring: listQuery({ includes: ['actor', 'comment'] }) } },
    async (request, reply) => {
      const { rows, located } = activity.eventsOf(request.principal, request.params.id);
      const page = readPage(request.query as Record<string, unknown>);
      const { items, total } = paginate(rows, page);
      return sendDocument(reply, 200, listDocument(request, { items: items.map((event) => eventResource(event, located)), total, page }));
    },
  );
  app.get<ById>(
    '/run-events/:id',
    { schema: { params: params('id'), querystring: showQuery(['actor', 'comment']) } },
    async (request, reply) => {
      const { event, located } = activity.event(request.principal, request.params.id);
      return sendDocument(reply, 200, singleDocument(eventResource(event, located)));
    },
  );

  app.get<ById>('/runs/:id/comments', { schema: { params: params('id'), querystring: listQuery() } }, async (request, reply) => {
    const { rows, located } = activity.commentsOf(request.principal, request.params.id);
    const page = readPage(request.query as Record<string, unknown>);
    const { items, total } = paginate(rows, page);
    return sendDocument(
      reply,
      200,
      listDocument(request, { items: items.map((comment) => commentResource(comment, located)), total, page }),
    );
  });
  app.post<ById>('/runs/:id/comments', { schema: { params: params('id'), body: COMMENT_BODY } }, async (request, reply) => {
    const { comment, located } = activity.addComment(
      request.principal,
      request.params.id,
      () => new Attributes(readResource(request.body, ['comments']).attributes).string('body', { required: true }) as string,
    );
    return sendDocument(reply, 201, singleDocument(commentResource(comment, located)));
  });
  app.get<ById>('/comments/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const { comment, located } = activity.comment(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(commentResource(comment, located)));
  });
}
