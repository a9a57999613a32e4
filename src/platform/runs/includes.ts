import type { DbOrTx } from '../../store/store.js';
import type { PrincipalLocker } from '../../store/schema/workspaces.js';
import type { OrganizationRow } from '../auth/principal.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { findUserById } from '../users/repo.js';
import { userResource } from '../users/resource.js';
import { organizationServiceAccount } from '../users/service.js';

/** The `users` resource behind an actor relationship (as `actorRelationship` names it), for `included`. */
export function actorUser(db: DbOrTx, actor: PrincipalLocker | null, organization: OrganizationRow): ResourceObject | null {
  if (!actor || actor.kind === 'team') return null;
  if (actor.kind === 'user') {
    const user = findUserById(db, actor.id);
    return user ? userResource(user) : null;
  }
  return userResource(organizationServiceAccount(organization));
}

/**
 * A comment's `commented` run event shares its random part with the comment's id, so each names
 * the other without a column of its own.
 */
export const commentEventId = (commentId: string) => `re-${commentId.slice(commentId.indexOf('-') + 1)}`;
export const commentOfEvent = (eventId: string) => `wsc-${eventId.slice(eventId.indexOf('-') + 1)}`;
