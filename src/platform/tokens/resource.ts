import { isoTimestamp } from '../../core/clock.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { TokenRow } from './repo.js';

/**
 * An `authentication-tokens` resource. `token` carries the secret only in the response that
 * created it (`secret` given); everywhere else it is null, because only a hash is stored.
 */
export function tokenResource(row: TokenRow, secret: string | null = null): ResourceObject {
  return {
    id: row.id,
    type: 'authentication-tokens',
    attributes: {
      'created-at': isoTimestamp(row.createdAt),
      'last-used-at': row.lastUsedAt ? isoTimestamp(row.lastUsedAt) : null,
      description: row.description,
      token: secret,
      'expired-at': row.expiredAt ? isoTimestamp(row.expiredAt) : null,
    },
    relationships: {
      'created-by': { data: row.createdById ? { id: row.createdById, type: 'users' } : null },
      // A team token names its team (the Go client reads it from every team-token document).
      ...(row.kind === 'team' && row.teamId ? { team: { data: { id: row.teamId, type: 'teams' } } } : {}),
    },
    links: { self: `/api/v2/authentication-tokens/${encodeURIComponent(row.id)}` },
  };
}
