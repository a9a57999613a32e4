import { createHash, randomBytes } from 'node:crypto';
import { badRequest } from '../../../core/errors.js';
import type { SecretsContext } from '../../context.js';
import type { HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { authTypeOf, CONFIG_KEY, type JwtConfig } from './config.js';
import { checkBoundCidrs, issueForClaims } from './login.js';
import { ROLE_NAME, type JwtRole } from './role.js';
import { fetchRemote } from './remote.js';
import type { OidcProvider, Validators } from './validators.js';

/**
 * The OIDC browser flow: `oidc/auth_url` makes a pending request (state, nonce, PKCE verifier)
 * and answers the provider's authorize URL; `oidc/callback` takes the state and code back,
 * exchanges the code at the provider's token endpoint and logs in with the ID token it gets.
 * Pending requests live in memory for 10 minutes of the emulated clock, as the real method's cache.
 */

const LOGIN_FAILED = 'Vault login failed.';
const REQUEST_TTL_MS = 10 * 60_000;

interface PendingRequest {
  mountUuid: string;
  roleName: string;
  redirectUri: string;
  nonce: string;
  clientNonce: string;
  codeVerifier: string;
  expiresAtMs: number;
}

const randomId = () => randomBytes(20).toString('hex');

function isLocalHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return bare === 'localhost' || /^127\./.test(bare) || bare === '::1';
}

/** The real method's redirect check: exact for remote hosts, any port for loopback ones. */
export function validRedirect(uri: string, allowed: readonly string[]): boolean {
  let input: URL;
  try {
    input = new URL(uri);
  } catch {
    return false;
  }
  if (!isLocalHost(input.hostname)) return allowed.some((candidate) => candidate.toLowerCase() === uri.toLowerCase());
  const withoutPort = (url: URL) => `${url.protocol}//${url.hostname}${url.pathname}${url.search}${url.hash}`;
  return allowed.some((candidate) => {
    try {
      return withoutPort(new URL(candidate)) === withoutPort(input);
    } catch {
      return false;
    }
  });
}

/** Go's url.Values.Encode: keys sorted, `+` for spaces. */
function encodeQuery(values: Record<string, string>): string {
  return Object.keys(values)
    .sort()
    .map((key) => `${encodeURIComponent(key)}=${encodeURIComponent(values[key] ?? '').replace(/%20/g, '+')}`)
    .join('&');
}

function authorizeUrl(config: JwtConfig, role: JwtRole, provider: OidcProvider, pending: PendingRequest, state: string): string {
  const implicit = config.oidc_response_types.includes('id_token');
  const scopes = role.oidc_scopes.includes('openid') ? role.oidc_scopes : ['openid', ...role.oidc_scopes];
  const query: Record<string, string> = {
    client_id: config.oidc_client_id,
    nonce: pending.nonce,
    redirect_uri: pending.redirectUri,
    response_type: implicit ? 'id_token' : 'code',
    scope: scopes.join(' '),
    state,
  };
  if (implicit) query.response_mode = 'form_post';
  else {
    query.code_challenge = createHash('sha256').update(pending.codeVerifier).digest('base64url');
    query.code_challenge_method = 'S256';
  }
  if (role.max_age > 0) query.max_age = String(role.max_age);
  const endpoint = provider.discovery.authorization_endpoint ?? '';
  return `${endpoint}${endpoint.includes('?') ? '&' : '?'}${encodeQuery(query)}`;
}

export function oidcPaths(context: SecretsContext, validators: Validators): PathSpec[] {
  const pending = new Map<string, PendingRequest>();
  const prune = () => {
    const now = context.clock.nowMs();
    for (const [state, request] of pending) if (request.expiresAtMs <= now) pending.delete(state);
  };

  async function authUrl(request: HandlerRequest): Promise<LogicalResponse> {
    const empty = { data: { auth_url: '' } };
    const config = request.storage.get<JwtConfig>(CONFIG_KEY);
    if (!config) throw badRequest('could not load configuration');
    if (authTypeOf(config) !== 'oidc-flow') throw badRequest('OIDC login is not configured for this mount');
    const roleName = (request.fields.get<string | undefined>('role') ?? '').toLowerCase() || config.default_role;
    if (roleName === '') throw badRequest('missing role');
    let redirectUri = request.fields.get<string | undefined>('redirect_uri') ?? '';
    if (redirectUri === '') throw badRequest('missing redirect_uri');
    const role = ROLE_NAME.test(roleName) ? request.storage.get<JwtRole>(`role/${roleName}`) : undefined;
    if (!role) throw badRequest(`role ${JSON.stringify(roleName)} could not be found`);
    let namespace = '';
    if (config.namespace_in_state) {
      let parsed: URL;
      try {
        parsed = new URL(redirectUri);
      } catch {
        return empty;
      }
      namespace = parsed.searchParams.get('namespace') ?? '';
      if (namespace !== '') {
        parsed.searchParams.delete('namespace');
        redirectUri = parsed.toString();
      }
    }
    // A redirect URI the role does not allow gets an empty URL, not an error, as for real.
    if (!validRedirect(redirectUri, role.allowed_redirect_uris)) return empty;
    if (config.oidc_response_mode === 'form_post') redirectUri = redirectUri.replace('ui/vault', 'v1');
    let provider: OidcProvider;
    try {
      provider = await validators.provider(request.mount.uuid, config);
    } catch {
      return empty;
    }
    prune();
    const state = randomId();
    const entry: PendingRequest = {
      mountUuid: request.mount.uuid,
      roleName,
      redirectUri,
      nonce: randomId(),
      clientNonce: request.fields.get<string | undefined>('client_nonce') ?? '',
      codeVerifier: randomBytes(32).toString('base64url'),
      expiresAtMs: context.clock.nowMs() + REQUEST_TTL_MS,
    };
    pending.set(state, entry);
    let url = authorizeUrl(config, role, provider, entry, state);
    if (namespace !== '') url = url.replace(state, encodeURIComponent(`${state},ns=${namespace}`));
    return { data: { auth_url: url } };
  }

  async function callback(request: HandlerRequest): Promise<LogicalResponse> {
    const config = request.storage.get<JwtConfig>(CONFIG_KEY);
    if (!config) throw badRequest(`${LOGIN_FAILED} Could not load configuration`);
    // A state with the namespace folded in (`<state>,ns=<ns>`) names the same request.
    const state = (request.fields.get<string | undefined>('state') ?? '').split(',ns=')[0] ?? '';
    prune();
    const entry = pending.get(state);
    pending.delete(state);
    if (!entry || entry.mountUuid !== request.mount.uuid) throw badRequest(`${LOGIN_FAILED} Expired or missing OAuth state.`);
    const clientNonce = request.fields.get<string | undefined>('client_nonce') ?? '';
    if (entry.clientNonce !== '' && clientNonce !== entry.clientNonce) throw badRequest('invalid client_nonce');
    const role = request.storage.get<JwtRole>(`role/${entry.roleName}`);
    if (!role) throw badRequest(`${LOGIN_FAILED} Role could not be found`);
    checkBoundCidrs(request, role);
    let provider: OidcProvider;
    try {
      provider = await validators.provider(request.mount.uuid, config);
    } catch (error) {
      throw badRequest(`error getting provider for login operation: ${(error as Error).message}`);
    }
    const code = request.fields.get<string | undefined>('code') ?? '';
    if (code === '') throw badRequest(`${LOGIN_FAILED} No code or id_token received.`);
    let claims: Record<string, unknown>;
    try {
      const idToken = await exchange(config, provider, entry, code);
      claims = await verifyIdToken(config, role, provider, entry, idToken, context.clock.nowMs());
    } catch (error) {
      throw badRequest(`${LOGIN_FAILED} Error exchanging oidc code: ${JSON.stringify((error as Error).message)}.`);
    }
    delete claims['nonce'];
    const subject = typeof claims['sub'] === 'string' ? claims['sub'] : '';
    if (role.bound_subject !== '' && role.bound_subject !== subject) throw badRequest('sub claim does not match bound subject');
    return issueForClaims(context, request, claims, entry.roleName, role);
  }

  return [
    {
      pattern: 'oidc/auth_url',
      summary: "Start the OIDC browser flow: the provider's authorize URL for a role and redirect URI.",
      fields: {
        role: { type: 'string', description: 'The role (the default role when omitted).' },
        redirect_uri: {
          type: 'string',
          description: "Where the provider sends the browser back; one of the role's allowed_redirect_uris.",
        },
        client_nonce: { type: 'string', description: 'A value the callback must repeat.' },
      },
      unauthenticated: ['create', 'update'],
      operations: { update: authUrl },
    },
    {
      pattern: 'oidc/callback',
      summary: 'Finish the OIDC browser flow: exchange the code and log in with the ID token.',
      fields: {
        state: { type: 'string', description: 'The state of the authorize URL.' },
        code: { type: 'string', description: 'The authorization code from the provider.' },
        id_token: { type: 'string', description: 'Accepted; the implicit flow (form_post) is not supported by understudy.' },
        client_nonce: { type: 'string', description: 'The client_nonce given to auth_url, if any.' },
      },
      unauthenticated: ['read'],
      operations: { read: callback },
    },
  ];
}

/** The authorization code for an ID token at the provider's token endpoint (client secret basic, PKCE). */
async function exchange(config: JwtConfig, provider: OidcProvider, entry: PendingRequest, code: string): Promise<string> {
  const op = 'Provider.Exchange';
  const credentials = `${encodeURIComponent(config.oidc_client_id)}:${encodeURIComponent(config.oidc_client_secret)}`;
  let response;
  try {
    response = await fetchRemote(provider.discovery.token_endpoint ?? '', config.oidc_discovery_ca_pem, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(credentials).toString('base64')}`,
      },
      body: encodeQuery({ code, code_verifier: entry.codeVerifier, grant_type: 'authorization_code', redirect_uri: entry.redirectUri }),
    });
  } catch (error) {
    throw new Error(`${op}: unable to exchange auth code with provider: oauth2: cannot fetch token: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (response.status < 200 || response.status > 299) {
    throw new Error(
      `${op}: unable to exchange auth code with provider: oauth2: cannot fetch token: ${response.statusLine}\nResponse: ${response.body}`,
    );
  }
  let idToken: unknown;
  try {
    idToken = (JSON.parse(response.body) as { id_token?: unknown }).id_token;
  } catch {
    idToken = undefined;
  }
  if (typeof idToken !== 'string' || idToken === '')
    throw new Error(`${op}: id_token is missing from auth code exchange: id_token is missing`);
  return idToken;
}

/** The provider library's ID token checks: signature, algorithm, issuer, expiry, nonce, iat, sub, aud. */
async function verifyIdToken(
  config: JwtConfig,
  role: JwtRole,
  provider: OidcProvider,
  entry: PendingRequest,
  idToken: string,
  nowMs: number,
): Promise<Record<string, unknown>> {
  const failed = (detail: string) => new Error(`Provider.Exchange: id_token failed verification: Provider.VerifyIDToken: ${detail}`);
  let claims: Record<string, unknown>;
  try {
    claims = await provider.keySet.verifySignature(idToken);
  } catch (error) {
    throw failed(`invalid id_token: failed to verify signature: ${(error as Error).message}: invalid signature`);
  }
  const algs = config.jwt_supported_algs.length > 0 ? config.jwt_supported_algs : ['RS256'];
  const alg = (JSON.parse(Buffer.from(idToken.split('.')[0] ?? '', 'base64url').toString('utf8')) as { alg?: unknown }).alg;
  if (!algs.includes(String(alg))) {
    throw failed(
      `invalid id_token: oidc: id token signed with unsupported algorithm, expected [${algs.join(' ')}] got ${JSON.stringify(alg)}`,
    );
  }
  if (claims['iss'] !== config.oidc_discovery_url) {
    const got = JSON.stringify(typeof claims['iss'] === 'string' ? claims['iss'] : '');
    const expected = JSON.stringify(config.oidc_discovery_url);
    throw failed(`invalid id_token: oidc: id token issued by a different provider, expected ${expected} got ${got}: invalid issuer`);
  }
  const leewayMs = 60_000;
  const exp = typeof claims['exp'] === 'number' ? claims['exp'] * 1000 : 0;
  if (exp !== 0 && exp < nowMs - leewayMs)
    throw failed(`invalid id_token: oidc: token is expired (Token Expiry: ${new Date(exp).toISOString()}): token is expired`);
  if (claims['nonce'] !== entry.nonce) throw failed('invalid id_token nonce: invalid nonce');
  const iat = typeof claims['iat'] === 'number' ? claims['iat'] * 1000 : 0;
  if (nowMs + leewayMs < iat) throw failed('invalid id_token current time before the iat (issued at) time: invalid issued at (iat)');
  if (typeof claims['sub'] !== 'string' || claims['sub'] === '') throw failed('invalid id_token: sub: missing required claim');
  const aud = typeof claims['aud'] === 'string' ? [claims['aud']] : Array.isArray(claims['aud']) ? claims['aud'].map(String) : [];
  if (aud.length === 0) throw failed('invalid id_token: aud: missing required claim');
  if (role.bound_audiences.length > 0 && !role.bound_audiences.some((want) => aud.includes(want))) {
    throw failed('invalid id_token audiences: verifyAudiences: invalid id_token audiences: invalid audience');
  }
  if (aud.length > 1 && !aud.includes(config.oidc_client_id)) {
    throw failed(
      `invalid id_token: multiple audiences (${aud.join(' ')}) and one of them is not equal client_id ` +
        `(${config.oidc_client_id}): invalid audience`,
    );
  }
  return claims;
}
