import { notFound } from '../../core/errors.js';
import type { LogicalResponse } from '../framework/types.js';

/** A LIST answer: keys with their `key_info`; an empty list is a 404, as the real service answers. */
export function listed(keys: string[], info: Record<string, unknown>): LogicalResponse {
  if (keys.length === 0) throw notFound();
  return { data: { keys, key_info: info } };
}

interface ListedAlias {
  id: string;
  name: string;
  canonicalId: string;
  mountAccessor: string;
}

/** The LIST answer of `entity-alias/id` and `group-alias/id`: ids in order, each with its name, owner and mount. */
export function listedAliases(all: Iterable<ListedAlias>): LogicalResponse {
  const aliases = [...all].sort((a, b) => (a.id < b.id ? -1 : 1));
  return listed(
    aliases.map((alias) => alias.id),
    Object.fromEntries(
      aliases.map((alias) => [alias.id, { name: alias.name, canonical_id: alias.canonicalId, mount_accessor: alias.mountAccessor }]),
    ),
  );
}
