import { isoTimestamp } from '../../core/clock.js';
import type { DbOrTx } from '../../store/store.js';
import type { OrganizationRow } from '../auth/principal.js';
import { IncludeRegistry } from '../jsonapi/include.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { findUsersByIds } from '../teams/repo.js';
import { userResource } from '../users/resource.js';
import { organizationServiceAccount } from '../users/service.js';
import { commentEventId, commentOfEvent } from './comment-ids.js';
import { findComments, type RunCommentRow, type RunEventRow } from './repo.js';
import { actorRelationship } from './resource.js';

export function runEventResource(event: RunEventRow, organization: OrganizationRow): ResourceObject {
  return {
    id: event.id,
    type: 'run-events',
    attributes: { action: event.action, 'created-at': isoTimestamp(event.createdAt), description: event.description },
    relationships: {
      actor: actorRelationship(event.actor, organization),
      comment: { data: event.action === 'commented' ? { id: commentOfEvent(event.id), type: 'comments' } : null },
    },
  };
}

export function commentResource(comment: RunCommentRow, organization: OrganizationRow): ResourceObject {
  return {
    id: comment.id,
    type: 'comments',
    attributes: { body: comment.body, 'created-at': isoTimestamp(comment.createdAt) },
    relationships: {
      'run-event': { data: { id: commentEventId(comment.id), type: 'run-events' } },
      'created-by': actorRelationship(comment.createdBy, organization),
    },
    links: { self: `/api/v2/comments/${comment.id}` },
  };
}

/** What the run-event include loaders get: a page of one run's events. */
export interface RunEventPage {
  db: DbOrTx;
  organization: OrganizationRow;
  events: readonly RunEventRow[];
}

/** What a run event can include, declared once: the users who acted and the comments of `commented` events, one query each. */
export const RUN_EVENT_INCLUDES = new IncludeRegistry<RunEventPage>({
  actor: ({ db, organization, events }) => {
    const users = findUsersByIds(db, [...new Set(events.flatMap(({ actor }) => (actor?.kind === 'user' ? [actor.id] : [])))]);
    return events.map(({ actor }) => {
      if (actor?.kind === 'user') {
        const user = users.get(actor.id);
        return user && userResource(user);
      }
      // A team acts without a user; an organization token as the organization's service account.
      return actor?.kind === 'organization' ? userResource(organizationServiceAccount(organization)) : null;
    });
  },
  comment: ({ db, organization, events }) => {
    const ids = events.flatMap((event) => (event.action === 'commented' ? [commentOfEvent(event.id)] : []));
    const byId = new Map(findComments(db, ids).map((comment) => [comment.id, comment]));
    return ids.map((id) => {
      const comment = byId.get(id);
      return comment && commentResource(comment, organization);
    });
  },
});
