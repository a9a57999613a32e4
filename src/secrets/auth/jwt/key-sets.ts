import type { KeyObject } from 'node:crypto';
import { keyFromJwk, MalformedJwsError, parseCompactJws, verifyJws, type ParsedJws } from './jws.js';
import { fetchRemote, RemoteError } from './remote.js';

/**
 * Where a login's token signature is checked: local keys, a JWKS URL, or the JWKS an OIDC
 * discovery document names. Errors carry the real method's texts (its validator prefixes them).
 */
export interface KeySet {
  /** The token's claims once a key verified its signature. */
  verifySignature(token: string): Promise<Record<string, unknown>>;
}

export class KeySetError extends Error {}

function claimsOf(payload: Buffer): Record<string, unknown> {
  let claims: unknown;
  try {
    claims = JSON.parse(payload.toString('utf8'));
  } catch {
    throw new KeySetError('invalid character in token payload');
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
    throw new KeySetError('json: cannot unmarshal token payload into Go value of type map[string]interface {}');
  }
  return claims as Record<string, unknown>;
}

/** How many verified tokens a key set remembers (about 1 KB each). */
const VERIFIED_TOKENS_KEPT = 1024;

/**
 * The payloads of tokens a key set has already verified, by the exact token text: the same bytes
 * checked against the same keys verify the same way, so a repeated login (a workload presenting
 * its token again) skips parsing and checking the signature: server CPU per RS256 login went from
 * 726 to 437 µs (bench row `POST /v1/auth/jwt/login`, compare.ts). Only the signature is remembered: the validator checks the claims
 * and times on every login, and each caller gets claims parsed afresh (it may change them). A key
 * set whose keys change forgets everything (`forgetAll`).
 */
class VerifiedTokens {
  private readonly payloads = new Map<string, Buffer>();

  payloadOf(token: string): Buffer | undefined {
    return this.payloads.get(token);
  }

  remember(token: string, payload: Buffer): void {
    if (this.payloads.size >= VERIFIED_TOKENS_KEPT) {
      // The oldest entry goes first (a Map iterates in insertion order).
      const oldest = this.payloads.keys().next();
      if (oldest.done !== true) this.payloads.delete(oldest.value);
    }
    this.payloads.set(token, payload);
  }

  forgetAll(): void {
    this.payloads.clear();
  }
}

/** `jwt_validation_pubkeys`: any of the keys may have signed the token. */
export class StaticKeySet implements KeySet {
  private readonly verified = new VerifiedTokens();

  constructor(private readonly keys: readonly KeyObject[]) {}

  async verifySignature(token: string): Promise<Record<string, unknown>> {
    const known = this.verified.payloadOf(token);
    if (known !== undefined) return claimsOf(known);
    let jws: ParsedJws;
    try {
      jws = parseCompactJws(token);
    } catch (error) {
      // An algorithm outside the list is simply one no key verifies.
      if (error instanceof MalformedJwsError && error.message.includes('unexpected signature algorithm')) {
        throw new KeySetError('no known key successfully validated the token signature');
      }
      throw new KeySetError((error as Error).message);
    }
    if (!this.keys.some((key) => verifyJws(jws, key))) throw new KeySetError('no known key successfully validated the token signature');
    const claims = claimsOf(jws.payload);
    this.verified.remember(token, jws.payload);
    return claims;
  }
}

interface PublishedKey {
  kid: string;
  key: KeyObject;
}

/**
 * A remote JWKS, kept until the method's configuration is written again. The keys are fetched on
 * the first verification; a token no cached key verifies (an unknown `kid`, typically) makes one
 * more fetch, shared by the logins waiting at the same moment, before it is refused.
 */
export class RemoteKeySet implements KeySet {
  private cached: PublishedKey[] = [];
  private inflight: Promise<PublishedKey[]> | undefined;
  /** Tokens the keys in `cached` verified; forgotten when `cached` is replaced. */
  private readonly verified = new VerifiedTokens();

  constructor(
    readonly jwksUrl: string,
    private readonly caPem: string,
  ) {}

  async verifySignature(token: string): Promise<Record<string, unknown>> {
    const known = this.verified.payloadOf(token);
    if (known !== undefined) return claimsOf(known);
    let jws: ParsedJws;
    try {
      jws = parseCompactJws(token);
    } catch (error) {
      throw new KeySetError(`oidc: malformed jwt: ${(error as Error).message}`);
    }
    if (this.verifiedBy(jws, this.cached)) return this.claimsRemembered(token, jws, this.cached);
    let fresh: PublishedKey[];
    try {
      fresh = await this.refresh();
    } catch (error) {
      throw new KeySetError(`fetching keys ${(error as Error).message}`);
    }
    if (this.verifiedBy(jws, fresh)) return this.claimsRemembered(token, jws, fresh);
    throw new KeySetError('failed to verify id token signature');
  }

  /**
   * The claims of a token one of `keys` verified, remembered only if those keys are still the
   * cached ones (a later fetch may have replaced them while this login waited).
   */
  private claimsRemembered(token: string, jws: ParsedJws, keys: readonly PublishedKey[]): Record<string, unknown> {
    const claims = claimsOf(jws.payload);
    if (keys === this.cached) this.verified.remember(token, jws.payload);
    return claims;
  }

  private verifiedBy(jws: ParsedJws, keys: readonly PublishedKey[]): boolean {
    // Only keys with the token's `kid` are tried; a token without one tries them all.
    return keys.some(({ kid, key }) => (jws.kid === '' || kid === jws.kid) && verifyJws(jws, key));
  }

  private refresh(): Promise<PublishedKey[]> {
    this.inflight ??= this.fetchKeys().finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  private async fetchKeys(): Promise<PublishedKey[]> {
    const response = await fetchRemote(this.jwksUrl, this.caPem);
    if (response.status !== 200) throw new RemoteError(`oidc: get keys failed: ${response.statusLine} ${response.body}`);
    let keys: PublishedKey[];
    try {
      const document = JSON.parse(response.body) as { keys?: unknown };
      if (!Array.isArray(document.keys)) throw new Error('json: cannot unmarshal keys into Go value of type jose.JSONWebKeySet');
      keys = document.keys.map((entry: unknown) => {
        if (typeof entry !== 'object' || entry === null) throw new Error('go-jose/go-jose: invalid JWK');
        const jwk = entry as Record<string, unknown>;
        return { kid: typeof jwk['kid'] === 'string' ? jwk['kid'] : '', key: keyFromJwk(jwk) };
      });
    } catch (error) {
      throw new RemoteError(`oidc: failed to decode keys: ${(error as Error).message} ${response.body}`);
    }
    this.cached = keys;
    this.verified.forgetAll();
    return keys;
  }
}

/** What the method reads from an OIDC discovery document. */
export interface DiscoveryDocument {
  issuer: string;
  jwks_uri: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
}

/**
 * The provider's discovery document at `<issuer>/.well-known/openid-configuration`, whose `issuer`
 * must equal the configured URL byte for byte.
 */
export async function fetchDiscovery(issuer: string, caPem: string): Promise<DiscoveryDocument> {
  if (issuer === '') throw new RemoteError('issuer must not be empty');
  const response = await fetchRemote(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, caPem);
  if (response.status !== 200) throw new RemoteError(`${response.statusLine}: ${response.body}`);
  let document: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(response.body);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    document = parsed as Record<string, unknown>;
  } catch (error) {
    throw new RemoteError(`failed to decode OIDC discovery document: ${(error as Error).message}`);
  }
  const text = (name: string) => {
    const value = document[name];
    return typeof value === 'string' ? value : '';
  };
  if (text('issuer') !== issuer) {
    throw new RemoteError(
      `issuer did not match the returned issuer, expected ${JSON.stringify(issuer)} got ${JSON.stringify(text('issuer'))}`,
    );
  }
  return {
    issuer,
    jwks_uri: text('jwks_uri'),
    authorization_endpoint: text('authorization_endpoint'),
    token_endpoint: text('token_endpoint'),
  };
}

export { RemoteError };
