import { isoTimestamp } from '../../core/clock.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { subscribableOf, type NotificationRow } from './repo.js';

/**
 * The `notification-configurations` resource. `token` is write-only (always null); email users
 * are identifiers only, never included, so every read of one configuration is the same object.
 */
export function notificationResource(row: NotificationRow): ResourceObject {
  const owner = subscribableOf(row);
  return {
    id: row.id,
    type: 'notification-configurations',
    attributes: {
      'destination-type': row.destinationType,
      enabled: row.enabled,
      name: row.name,
      token: null,
      triggers: row.triggers,
      url: row.url,
      'email-addresses': row.emailAddresses,
      'delivery-responses': row.deliveryResponses,
      'created-at': isoTimestamp(row.createdAt),
      'updated-at': isoTimestamp(row.updatedAt),
    },
    relationships: {
      subscribable: { data: { id: owner.id, type: owner.kind } },
      users: { data: row.emailUserIds.map((id) => ({ id, type: 'users' })) },
    },
    links: { self: `/api/v2/notification-configurations/${row.id}` },
  };
}
