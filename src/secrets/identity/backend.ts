import type { SecretsContext } from '../context.js';
import type { Backend } from '../framework/types.js';
import { entityAndAliasPaths } from './paths-entities.js';
import { groupAndAliasPaths } from './paths-groups.js';
import { lookupPaths } from './paths-lookup.js';

/** The built-in `identity/` mount: entities, aliases, groups, group aliases and lookups. */
export function identityBackend(context: SecretsContext): Backend {
  const { identity } = context;
  return {
    type: 'identity',
    paths: [...entityAndAliasPaths(identity), ...groupAndAliasPaths(identity), ...lookupPaths(identity)],
  };
}
