import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import { commentResource, RUN_EVENT_INCLUDES, runEventResource } from './event-view.js';

const COMMENT_BODY = resourceBody(['comments'], { attributes: { body: Attr.string() } });

type ById = { Params: { id: string } };

const EVENT_INCLUDES = RUN_EVENT_INCLUDES.names;

/** What happened to a run (`run-events`, the CLI reads them for warnings) and the comments on it. */
export async function runEventRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const activity = context.services.runActivity;

  app.get<ById>(
    '/runs/:id/run-events',
    { schema: { params: params('id'), querystring: listQuery({ includes: [...EVENT_INCLUDES] }) } },
    async (request, reply) => {
      const { rows, located } = activity.eventsOf(request.principal, request.params.id);
      const query = request.query as Record<string, unknown>;
      const wanted = RUN_EVENT_INCLUDES.read(query);
      const page = readPage(query);
      const { items, total } = paginate(rows, page);
      const { organization } = located;
      const document = { items: items.map((event) => runEventResource(event, organization)), total, page };
      const included = RUN_EVENT_INCLUDES.collect(wanted, { db: context.store.db, organization, events: items });
      return sendDocument(reply, 200, listDocument(request, document, { included }));
    },
  );
  app.get<ById>(
    '/run-events/:id',
    { schema: { params: params('id'), querystring: showQuery([...EVENT_INCLUDES]) } },
    async (request, reply) => {
      const { event, located } = activity.event(request.principal, request.params.id);
      const wanted = RUN_EVENT_INCLUDES.read(request.query as Record<string, unknown>);
      const { organization } = located;
      const included = RUN_EVENT_INCLUDES.collect(wanted, { db: context.store.db, organization, events: [event] });
      return sendDocument(reply, 200, singleDocument(runEventResource(event, organization), included));
    },
  );

  app.get<ById>('/runs/:id/comments', { schema: { params: params('id'), querystring: listQuery() } }, async (request, reply) => {
    const { rows, located } = activity.commentsOf(request.principal, request.params.id);
    const page = readPage(request.query as Record<string, unknown>);
    const { items, total } = paginate(rows, page);
    return sendDocument(
      reply,
      200,
      listDocument(request, { items: items.map((comment) => commentResource(comment, located.organization)), total, page }),
    );
  });
  app.post<ById>('/runs/:id/comments', { schema: { params: params('id'), body: COMMENT_BODY } }, async (request, reply) => {
    const { comment, located } = activity.addComment(
      request.principal,
      request.params.id,
      () => new Attributes(readResource(request.body, ['comments']).attributes).string('body', { required: true }) as string,
    );
    return sendDocument(reply, 201, singleDocument(commentResource(comment, located.organization)));
  });
  app.get<ById>('/comments/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const { comment, located } = activity.comment(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(commentResource(comment, located.organization)));
  });
}
