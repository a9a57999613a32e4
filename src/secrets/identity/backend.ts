import type { SecretsContext } from '../context.js';
import type { Backend } from '../framework/types.js';
import { oidcPaths } from './oidc/paths.js';
import { entityAndAliasPaths } from './paths-entities.js';
import { groupAndAliasPaths } from './paths-groups.js';
import { lookupPaths } from './paths-lookup.js';

/** The built-in `identity/` mount: entities, aliases, groups, group aliases, lookups and identity tokens. */
export function identityBackend(context: SecretsContext): Backend {
  const { identity, oidc } = context;
  return {
    type: 'identity',
    paths: [...entityAndAliasPaths(identity), ...groupAndAliasPaths(identity), ...lookupPaths(identity), ...oidcPaths(oidc, identity)],
    dueSources: [oidc.due],
  };
}
