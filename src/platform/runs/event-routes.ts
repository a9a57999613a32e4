import { isoTimestamp } from '../../core/clock.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { Included, readInclude } from '../jsonapi/include.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { Located } from '../workspaces/service.js';
import type { RunCommentRow, RunEventRow } from './repo.js';
import { actorUser, commentEventId, commentOfEvent } from './includes.js';
import { actorRelationship } from './resource.js';

const COMMENT_BODY = resourceBody(['comments'], { attributes: { body: Attr.string() } });

type ById = { Params: { id: string } };

const EVENT_INCLUDES = ['actor', 'comment'] as const;

function eventResource(event: RunEventRow, located: Located): ResourceObject {
  return {
    id: event.id,
    type: 'run-events',
    attributes: { action: event.action, 'created-at': isoTimestamp(event.createdAt), description: event.description },
    relationships: {
      actor: actorRelationship(event.actor, located.organization),
      comment: { data: event.action === 'commented' ? { id: commentOfEvent(event.id), type: 'comments' } : null },
    },
  };
}

function commentResource(comment: RunCommentRow, located: Located): ResourceObject {
  return {
    id: comment.id,
    type: 'comments',
    attributes: { body: comment.body, 'created-at': isoTimestamp(comment.createdAt) },
    relationships: {
      'run-event': { data: { id: commentEventId(comment.id), type: 'run-events' } },
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
    { schema: { params: params('id'), querystring: listQuery({ includes: [...EVENT_INCLUDES] }) } },
    async (request, reply) => {
      const { rows, located } = activity.eventsOf(request.principal, request.params.id);
      const query = request.query as Record<string, unknown>;
      const wanted = readInclude(query, EVENT_INCLUDES);
      const page = readPage(query);
      const { items, total } = paginate(rows, page);
      const document = { items: items.map((event) => eventResource(event, located)), total, page };
      return sendDocument(reply, 200, listDocument(request, document, { included: eventIncludes(items, located, wanted) }));
    },
  );
  app.get<ById>(
    '/run-events/:id',
    { schema: { params: params('id'), querystring: showQuery([...EVENT_INCLUDES]) } },
    async (request, reply) => {
      const { event, located } = activity.event(request.principal, request.params.id);
      const wanted = readInclude(request.query as Record<string, unknown>, EVENT_INCLUDES);
      return sendDocument(reply, 200, singleDocument(eventResource(event, located), eventIncludes([event], located, wanted)));
    },
  );

  /** `include=actor,comment`: the users who acted and the comments of `commented` events. */
  function eventIncludes(events: RunEventRow[], located: Located, wanted: ReadonlySet<string>): Included {
    const included = new Included();
    for (const event of events) {
      if (wanted.has('actor')) included.add(actorUser(context.store.db, event.actor, located.organization));
      const comment = event.action === 'commented' && wanted.has('comment') ? activity.findComment(commentOfEvent(event.id)) : undefined;
      if (comment) included.add(commentResource(comment, located));
    }
    return included;
  }

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
