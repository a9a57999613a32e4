import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { badRequest } from '../../../core/errors.js';
import type { FieldSpec, HandlerRequest } from '../../framework/types.js';
import { isSupportedAlg } from './jws.js';
import { fetchDiscovery, RemoteKeySet } from './key-sets.js';
import { parseCaPem } from './remote.js';

/** The method's configuration as stored (the client secret too: mount storage is sealed at rest). */
export interface JwtConfig {
  oidc_discovery_url: string;
  oidc_discovery_ca_pem: string;
  oidc_client_id: string;
  oidc_client_secret: string;
  oidc_response_mode: string;
  oidc_response_types: string[];
  jwks_url: string;
  jwks_ca_pem: string;
  jwt_validation_pubkeys: string[];
  jwt_supported_algs: string[];
  bound_issuer: string;
  default_role: string;
  namespace_in_state: boolean;
  unsupported_critical_cert_extensions: string[];
}

export const CONFIG_KEY = 'config';

export const CONFIG_FIELDS: Record<string, FieldSpec> = {
  oidc_discovery_url: { type: 'string', description: 'OIDC discovery base URL (without `/.well-known/openid-configuration`).' },
  oidc_discovery_ca_pem: { type: 'string', description: 'CA certificates (PEM) for the discovery and its JWKS connection.' },
  oidc_client_id: { type: 'string', description: 'OAuth client ID, for the OIDC browser flow.' },
  oidc_client_secret: { type: 'string', description: 'OAuth client secret, for the OIDC browser flow; never returned.' },
  oidc_response_mode: { type: 'string', description: '`query` or `form_post`.' },
  oidc_response_types: { type: 'commaStringSlice', description: '`code` and/or `id_token`.' },
  jwks_url: { type: 'string', description: 'JWKS URL whose keys verify tokens.' },
  jwks_ca_pem: { type: 'string', description: 'CA certificates (PEM) for the JWKS connection.' },
  jwks_pairs: { type: 'any', description: 'Several JWKS URLs with their CAs (not supported by understudy).', documentedAs: 'stringSlice' },
  jwt_validation_pubkeys: { type: 'commaStringSlice', description: 'PEM public keys (or certificates) that verify tokens locally.' },
  jwt_supported_algs: { type: 'commaStringSlice', description: 'Accepted signing algorithms; all the method knows when empty.' },
  bound_issuer: { type: 'string', description: 'The `iss` every token must carry.' },
  default_role: { type: 'string', description: 'Role used when a login names none.' },
  provider_config: { type: 'map', description: 'Provider-specific settings (not supported by understudy).' },
  namespace_in_state: { type: 'bool', description: 'Put the namespace in the OIDC state (default true for new configurations).' },
  unsupported_critical_cert_extensions: { type: 'commaStringSlice', description: 'Critical certificate extensions to ignore (OIDs).' },
};

/** How the configuration verifies tokens (the real method's auth types). */
export type AuthType = 'static' | 'jwks' | 'discovery' | 'oidc-flow' | 'unconfigured';

export function authTypeOf(config: JwtConfig): AuthType {
  if (config.jwt_validation_pubkeys.length > 0) return 'static';
  if (config.jwks_url !== '') return 'jwks';
  if (config.oidc_discovery_url !== '') return config.oidc_client_id !== '' && config.oidc_client_secret !== '' ? 'oidc-flow' : 'discovery';
  return 'unconfigured';
}

/** A PEM public key or certificate (RSA, ECDSA or Ed25519), as the real method's parser reads them. */
export function parsePublicKeyPem(pem: string): KeyObject {
  let key: KeyObject | undefined;
  try {
    key = createPublicKey(pem);
  } catch {
    try {
      key = new X509Certificate(pem).publicKey;
    } catch {
      key = undefined;
    }
  }
  if (!key || !['rsa', 'ec', 'ed25519'].includes(key.asymmetricKeyType ?? '')) {
    throw badRequest('error parsing public key: data does not contain any valid public keys');
  }
  return key;
}

/** A JWT signed by a key nobody has: a working JWKS refuses it with the signature error. */
const PROBE_JWT = 'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJwcm9iZSJ9.' + Buffer.alloc(256, 1).toString('base64url');

async function checkJwksUrl(url: string, caPem: string): Promise<void> {
  try {
    if (caPem !== '') parseCaPem(caPem);
  } catch {
    throw badRequest('error checking jwks_ca_pem');
  }
  try {
    await new RemoteKeySet(url, caPem).verifySignature(PROBE_JWT);
  } catch (error) {
    if (!(error as Error).message.includes('failed to verify id token signature')) throw badRequest(`error checking jwks URL ${url}`);
  }
}

/**
 * A configuration write, validated in the real method's order. The discovery document or JWKS is
 * fetched here (before anything is stored), so a failed write changes nothing.
 */
export async function readConfigWrite(request: HandlerRequest, existing: JwtConfig | undefined): Promise<JwtConfig> {
  const { fields } = request;
  const text = (name: string) => fields.get<string | undefined>(name) ?? '';
  const list = (name: string) => fields.get<string[] | undefined>(name) ?? [];
  const config: JwtConfig = {
    oidc_discovery_url: text('oidc_discovery_url'),
    oidc_discovery_ca_pem: text('oidc_discovery_ca_pem'),
    oidc_client_id: text('oidc_client_id'),
    oidc_client_secret: text('oidc_client_secret'),
    oidc_response_mode: text('oidc_response_mode'),
    oidc_response_types: list('oidc_response_types'),
    jwks_url: text('jwks_url'),
    jwks_ca_pem: text('jwks_ca_pem'),
    jwt_validation_pubkeys: list('jwt_validation_pubkeys'),
    jwt_supported_algs: list('jwt_supported_algs'),
    bound_issuer: text('bound_issuer'),
    default_role: text('default_role').toLowerCase(),
    namespace_in_state: fields.has('namespace_in_state')
      ? fields.get<boolean>('namespace_in_state')
      : (existing?.namespace_in_state ?? true),
    unsupported_critical_cert_extensions: list('unsupported_critical_cert_extensions'),
  };
  const jwksPairs = request.data['jwks_pairs'];
  const hasPairs = Array.isArray(jwksPairs) ? jwksPairs.length > 0 : typeof jwksPairs === 'string' && jwksPairs !== '';
  const methods = [config.oidc_discovery_url !== '', config.jwt_validation_pubkeys.length > 0, config.jwks_url !== '', hasPairs];
  if (methods.filter(Boolean).length !== 1) {
    throw badRequest("exactly one of 'jwt_validation_pubkeys', 'jwks_url', 'jwks_pairs' or 'oidc_discovery_url' must be set");
  }
  if ((config.oidc_client_id === '') !== (config.oidc_client_secret === '')) {
    throw badRequest("both 'oidc_client_id' and 'oidc_client_secret' must be set for OIDC");
  }
  if (config.oidc_discovery_url !== '') {
    try {
      await fetchDiscovery(config.oidc_discovery_url, config.oidc_discovery_ca_pem);
    } catch {
      throw badRequest('error checking oidc discovery URL');
    }
  } else if (config.oidc_client_id !== '') {
    throw badRequest("'oidc_discovery_url' must be set for OIDC");
  } else if (hasPairs) {
    throw badRequest('invalid jwks_pairs: understudy supports a single jwks_url only');
  } else if (config.jwks_url !== '') {
    await checkJwksUrl(config.jwks_url, config.jwks_ca_pem);
  } else {
    for (const pem of config.jwt_validation_pubkeys) parsePublicKeyPem(pem);
  }
  const badAlg = config.jwt_supported_algs.find((alg) => !isSupportedAlg(alg));
  if (badAlg !== undefined) throw badRequest(`invalid jwt_supported_algs: unsupported signing algorithm ${JSON.stringify(badAlg)}`);
  if (!config.oidc_response_types.every((type) => type === 'code' || type === 'id_token')) {
    throw badRequest(`invalid response_types [${config.oidc_response_types.join(' ')}]. 'code' and 'id_token' are allowed`);
  }
  if (config.oidc_response_mode === '' || config.oidc_response_mode === 'query') {
    if (config.oidc_response_types.includes('id_token'))
      throw badRequest('query response_mode may not be used with an id_token response_type');
  } else if (config.oidc_response_mode !== 'form_post') {
    throw badRequest(`invalid response_mode: ${JSON.stringify(config.oidc_response_mode)}`);
  }
  const providerConfig = fields.get<Record<string, unknown> | undefined>('provider_config');
  if (providerConfig && Object.keys(providerConfig).length > 0) {
    throw badRequest('invalid provider_config: understudy supports no provider-specific configuration');
  }
  return config;
}

/** The configuration as reads show it: everything but the client secret. */
export function configWire(config: JwtConfig): Record<string, unknown> {
  const { oidc_client_secret: _secret, ...shown } = config;
  return { ...shown, jwks_pairs: [], provider_config: {} };
}
