import { isoTimestamp } from '../../core/clock.js';
import type { UserRow } from '../auth/principal.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { MembershipRow } from './repo.js';

/**
 * An organization membership on the wire, wherever it appears: the memberships endpoints and a
 * team's `include=organization-memberships` (status, email, and the user, organization and teams
 * relationships real clients read).
 */
export function membershipResource(
  membership: MembershipRow,
  user: UserRow,
  organizationName: string,
  teamIds: readonly string[],
): ResourceObject {
  return {
    id: membership.id,
    type: 'organization-memberships',
    attributes: {
      status: membership.status,
      email: user.email,
      'created-at': isoTimestamp(membership.createdAt),
    },
    relationships: {
      organization: { data: { id: organizationName, type: 'organizations' } },
      user: { data: { id: user.id, type: 'users' } },
      teams: { data: teamIds.map((id) => ({ id, type: 'teams' })) },
    },
    links: { self: `/api/v2/organization-memberships/${encodeURIComponent(membership.id)}` },
  };
}
