import { authTypeOf, parsePublicKeyPem, type JwtConfig } from './config.js';
import { fetchDiscovery, RemoteKeySet, StaticKeySet, type DiscoveryDocument, type KeySet } from './key-sets.js';

export class ValidatorConfigError extends Error {}

export interface OidcProvider {
  discovery: DiscoveryDocument;
  keySet: KeySet;
}

interface Cached {
  /** The stored configuration the key set was built from; any other one builds a new set. */
  fingerprint: string;
  /**
   * The configuration object last matched: logins read it shared and frozen (`getShared`), the
   * same object while the stored entry is unchanged, so the same object needs no fingerprint.
   */
  config: JwtConfig;
  keySet: KeySet;
}

/**
 * Each mount's key set, built on the first login after a configuration write and kept until the
 * next one (or until the mount goes), as the real method keeps its validator: a remote JWKS is
 * fetched once and again only for a token no cached key verifies. An OIDC discovery configuration
 * fetches its discovery document when the set is built; a failure is not cached.
 */
export class Validators {
  private readonly byMount = new Map<string, Cached>();
  private readonly providers = new Map<string, { fingerprint: string; provider: OidcProvider }>();

  async keySet(mountUuid: string, config: JwtConfig): Promise<KeySet> {
    const cached = this.byMount.get(mountUuid);
    if (cached?.config === config) return cached.keySet;
    const fingerprint = JSON.stringify(config);
    if (cached?.fingerprint === fingerprint) {
      cached.config = config;
      return cached.keySet;
    }
    const keySet = await build(config);
    this.byMount.set(mountUuid, { fingerprint, config, keySet });
    return keySet;
  }

  /**
   * The OIDC provider of a browser-flow configuration: its discovery document and the key set of
   * its `jwks_uri`, kept like the login's key set.
   */
  async provider(mountUuid: string, config: JwtConfig): Promise<OidcProvider> {
    const fingerprint = JSON.stringify(config);
    const cached = this.providers.get(mountUuid);
    if (cached?.fingerprint === fingerprint) return cached.provider;
    const discovery = await fetchDiscovery(config.oidc_discovery_url, config.oidc_discovery_ca_pem);
    const provider = { discovery, keySet: new RemoteKeySet(discovery.jwks_uri, config.oidc_discovery_ca_pem) };
    this.providers.set(mountUuid, { fingerprint, provider });
    return provider;
  }

  forget(mountUuid: string): void {
    this.byMount.delete(mountUuid);
    this.providers.delete(mountUuid);
  }
}

async function build(config: JwtConfig): Promise<KeySet> {
  switch (authTypeOf(config)) {
    case 'static':
      return new StaticKeySet(config.jwt_validation_pubkeys.map(parsePublicKeyPem));
    case 'jwks':
      return new RemoteKeySet(config.jwks_url, config.jwks_ca_pem);
    case 'discovery':
      try {
        const discovery = await fetchDiscovery(config.oidc_discovery_url, config.oidc_discovery_ca_pem);
        return new RemoteKeySet(discovery.jwks_uri, config.oidc_discovery_ca_pem);
      } catch (error) {
        throw new ValidatorConfigError(`keyset configuration error: ${(error as Error).message}`);
      }
    default:
      // The OIDC browser flow's configuration (client ID and secret) verifies no direct logins.
      throw new ValidatorConfigError('unsupported config type');
  }
}
