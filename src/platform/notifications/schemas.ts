/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { Type } from '@fastify/type-provider-typebox';
import { A, created, listed, noContent, ok, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `notification-configurations` resource. */
export const NOTIFICATION_CONFIGURATION = resourceSchema(
  'notification-configurations',
  {
    'destination-type': A.string(),
    enabled: A.boolean(),
    name: A.string(),
    token: A.nullable(A.string()),
    triggers: A.strings(),
    url: A.nullable(A.string()),
    'email-addresses': A.strings(),
    'delivery-responses': Type.Array(A.any()),
    'created-at': A.time(),
    'updated-at': A.time(),
  },
  { relationships: ['subscribable', 'users'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const NOTIFICATIONS_RESPONSES: ResponseTable = {
  'POST /workspaces/:id/notification-configurations': created(single(NOTIFICATION_CONFIGURATION)),
  'POST /teams/:id/notification-configurations': created(single(NOTIFICATION_CONFIGURATION)),
  'POST /projects/:id/notification-configurations': created(single(NOTIFICATION_CONFIGURATION)),
  'GET /workspaces/:id/notification-configurations': ok(
    listed(NOTIFICATION_CONFIGURATION, 'paginated (links, meta) when page[number] or page[size] is given'),
  ),
  'GET /teams/:id/notification-configurations': ok(
    listed(NOTIFICATION_CONFIGURATION, 'paginated (links, meta) when page[number] or page[size] is given'),
  ),
  'GET /projects/:id/notification-configurations': ok(
    listed(NOTIFICATION_CONFIGURATION, 'paginated (links, meta) when page[number] or page[size] is given'),
  ),
  'GET /notification-configurations/:id': ok(single(NOTIFICATION_CONFIGURATION)),
  'PATCH /notification-configurations/:id': ok(single(NOTIFICATION_CONFIGURATION)),
  'POST /notification-configurations/:id/actions/verify': ok(single(NOTIFICATION_CONFIGURATION)),
  'DELETE /notification-configurations/:id': noContent,
};
