import type { SecretsContext } from '../context.js';
import type { Backend } from '../framework/types.js';
import { MountStorage } from '../storage/mount-storage.js';
import { IDENTITY_MOUNT_UUID } from './identity-store.js';
import { oidcPaths } from './oidc/paths.js';
import { OidcProvider } from './oidc/provider.js';
import { entityAndAliasPaths } from './paths-entities.js';
import { groupAndAliasPaths } from './paths-groups.js';
import { lookupPaths } from './paths-lookup.js';

/** One OIDC provider per secrets tree: the router's handlers and the scheduler must share its due cache. */
const providers = new WeakMap<SecretsContext, OidcProvider>();

function oidcProviderOf(context: SecretsContext): OidcProvider {
  let provider = providers.get(context);
  if (!provider) {
    const storage = new MountStorage(context.store.db, IDENTITY_MOUNT_UUID);
    provider = new OidcProvider(context.store, context.clock, storage, context.scheduler);
    providers.set(context, provider);
  }
  return provider;
}

/** The built-in `identity/` mount: entities, aliases, groups, group aliases, lookups and identity tokens. */
export function identityBackend(context: SecretsContext): Backend {
  const { identity } = context;
  const oidc = oidcProviderOf(context);
  return {
    type: 'identity',
    paths: [...entityAndAliasPaths(identity), ...groupAndAliasPaths(identity), ...lookupPaths(identity), ...oidcPaths(oidc, identity)],
    dueSources: [oidc.due],
  };
}
