import type { PlatformApp, PlatformContext } from '../context.js';
import { readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { listQuery, params } from '../jsonapi/schemas.js';
import { NOTIFICATION_BODY, NOTIFICATION_TYPES, readNotificationInput } from './input.js';
import { notificationResource } from './resource.js';
import type { SubscribableKind } from './triggers.js';

const OWNERS: readonly SubscribableKind[] = ['workspaces', 'teams', 'projects'];

export async function notificationRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.notifications;

  for (const kind of OWNERS) {
    const path = `/${kind}/:id/notification-configurations`;

    app.post(path, { schema: { params: params('id'), body: NOTIFICATION_BODY } }, async (request, reply) => {
      const owned = service.owner(request.principal, kind, request.params.id);
      const body = readResource(request.body, NOTIFICATION_TYPES);
      const row = await service.create(owned, readNotificationInput(body.attributes, body.relationships, kind, true));
      return sendDocument(reply, 201, singleDocument(notificationResource(row)));
    });

    // Without page parameters the list is not paginated at all (the Go client checks there is no pagination meta).
    app.get(path, { schema: { params: params('id'), querystring: listQuery() } }, async (request, reply) => {
      const owned = service.owner(request.principal, kind, request.params.id);
      const items = service.list(owned).map(notificationResource);
      const query = request.query as Record<string, unknown>;
      if (query['page[number]'] === undefined && query['page[size]'] === undefined) return sendDocument(reply, 200, { data: items });
      const page = readPage(query);
      return sendDocument(reply, 200, listDocument(request, paginate(items, page)));
    });
  }

  app.get('/notification-configurations/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const { row } = service.visible(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(notificationResource(row)));
  });

  app.patch('/notification-configurations/:id', { schema: { params: params('id'), body: NOTIFICATION_BODY } }, async (request, reply) => {
    const { owner } = service.visible(request.principal, request.params.id);
    const body = readResource(request.body, NOTIFICATION_TYPES);
    const input = readNotificationInput(body.attributes, body.relationships, owner.kind, false);
    const updated = await service.update(request.principal, request.params.id, input);
    return sendDocument(reply, 200, singleDocument(notificationResource(updated)));
  });

  app.post('/notification-configurations/:id/actions/verify', { schema: { params: params('id') } }, async (request, reply) => {
    const verified = await service.verify(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(notificationResource(verified)));
  });

  app.delete('/notification-configurations/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
