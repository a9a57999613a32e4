import type { Backend } from '../framework/types.js';
import type { SecretsContext } from '../context.js';
import { TokenStore, type TokenEntry } from './token-store.js';

/** `lookup-self`'s `data`, shaped as the real service answers it. */
export function tokenLookupData(token: TokenEntry, store: TokenStore): Record<string, unknown> {
  return {
    accessor: token.accessor,
    creation_time: Math.floor(token.createdAt.getTime() / 1000),
    creation_ttl: token.ttlSeconds,
    display_name: token.displayName,
    entity_id: '',
    expire_time: token.expiresAt ? token.expiresAt.toISOString() : null,
    explicit_max_ttl: token.explicitMaxTtlSeconds,
    id: token.id,
    meta: token.meta,
    num_uses: token.numUses,
    orphan: token.orphan,
    path: token.path,
    policies: token.policies,
    ttl: store.remainingSeconds(token),
    type: 'service',
  };
}

export function tokenBackend(context: SecretsContext): Backend {
  const lookupSelf = ({ token }: { token: TokenEntry | null }) => {
    const store = new TokenStore(context.store.db, context.clock);
    return { data: tokenLookupData(token as TokenEntry, store) };
  };
  return {
    type: 'token',
    paths: [
      {
        pattern: 'lookup-self',
        summary: "The calling token's properties.",
        operations: { read: lookupSelf, update: lookupSelf },
      },
    ],
  };
}
