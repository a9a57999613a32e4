import { createHash, createPublicKey } from 'node:crypto';
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import type { KeyClient, KeyVaultKey } from '@azure/keyvault-keys';
import { ClientCache, KmsError, type KeyPolicy, type KmsAdapter, type KmsSigner } from '../types.js';

/** How to reach the vault and get tokens for it. */
export type CloudCAuthority =
  /** The provider's login service (a named cloud environment). */
  | { kind: 'provider'; authorityHost: string }
  /** A stand-in's client-credentials token endpoint (understudy's own, or a test's). */
  | { kind: 'stand-in'; tokenUrl: string };

/** What a `cloud-c-keyvault` managed key gives the adapter. */
export interface CloudCConfig {
  vaultUrl: string;
  authority: CloudCAuthority;
  tenantId: string;
  /** Empty with `clientSecret` empty: the managed identity of the host. */
  clientId: string;
  clientSecret: string;
  keyName: string;
  keyBits: number;
}

/**
 * A client-credentials grant against a stand-in's token endpoint. The provider's own credential
 * classes insist on its https login hosts, which a local stand-in is not.
 */
class StandInCredential implements TokenCredential {
  constructor(
    private readonly tokenUrl: string,
    private readonly clientId: string,
    private readonly clientSecret: string,
  ) {}

  async getToken(scopes: string | string[]): Promise<AccessToken> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.clientId,
      client_secret: this.clientSecret,
      scope: Array.isArray(scopes) ? scopes.join(' ') : scopes,
    });
    const response = await fetch(this.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    const body = (await response.json().catch(() => ({}))) as {
      access_token?: string;
      expires_in?: number;
      error_description?: string;
      error?: string;
    };
    if (!response.ok || !body.access_token)
      throw new KmsError(`token request refused: ${body.error_description ?? body.error ?? `HTTP ${response.status}`}`);
    return { token: body.access_token, expiresOnTimestamp: Date.now() + (body.expires_in ?? 3600) * 1000 };
  }
}

/** The SDKs take about a second to load: imported on first use (the bundle leaves them outside). */
let sdkLoaded: Promise<[typeof import('@azure/identity'), typeof import('@azure/keyvault-keys')]> | undefined;
const sdk = () => (sdkLoaded ??= Promise.all([import('@azure/identity'), import('@azure/keyvault-keys')]));

async function credentialFor(config: CloudCConfig): Promise<TokenCredential> {
  if (config.authority.kind === 'stand-in') return new StandInCredential(config.authority.tokenUrl, config.clientId, config.clientSecret);
  const [{ ClientSecretCredential, ManagedIdentityCredential }] = await sdk();
  if (config.clientId === '') return new ManagedIdentityCredential();
  return new ClientSecretCredential(config.tenantId, config.clientId, config.clientSecret, {
    authorityHost: config.authority.authorityHost,
  });
}

/** The service's reason (its error code and message) without the SDK's request dump. */
function reason(error: unknown): KmsError {
  if (error instanceof KmsError) return error;
  const rest = error as { code?: string; statusCode?: number; message?: string };
  const message = (rest.message ?? String(error)).split('\n')[0] ?? '';
  return new KmsError(rest.code ? `${rest.code}: ${message}` : message);
}

/** Cloud provider C's key vault through its official SDK clients, over HTTP(S). */
export class CloudCKeyVaultAdapter implements KmsAdapter<CloudCConfig> {
  /** One credential and key client per vault and identity, so tokens are reused between calls. */
  private readonly clients = new ClientCache<Promise<{ credential: TokenCredential; keys: KeyClient }>>();

  async open(config: CloudCConfig, policy: KeyPolicy): Promise<KmsSigner> {
    // A local stand-in is neither https nor a subdomain of the provider's vault domain.
    const local = config.authority.kind === 'stand-in';
    const options = { disableChallengeResourceVerification: local, allowInsecureConnection: config.vaultUrl.startsWith('http:') };
    const settings = JSON.stringify([config.vaultUrl, config.authority, config.tenantId, config.clientId, config.clientSecret]);
    const [, { CryptographyClient, KeyClient }] = await sdk();
    const { credential, keys } = await this.clients.get(settings, async () => {
      const created = await credentialFor(config);
      return { credential: created, keys: new KeyClient(config.vaultUrl, created, options) };
    });
    try {
      let key: KeyVaultKey;
      try {
        key = await keys.getKey(config.keyName);
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode !== 404 || !policy.allowGenerate) throw error;
        key = await keys.createRsaKey(config.keyName, { keySize: config.keyBits, keyOps: ['sign', 'verify'] });
      }
      const { n, e } = key.key ?? {};
      if (!n || !e || !key.keyType?.startsWith('RSA')) throw new KmsError(`key ${config.keyName} is not an RSA key`);
      const publicKey = createPublicKey({
        key: { kty: 'RSA', n: Buffer.from(n).toString('base64url'), e: Buffer.from(e).toString('base64url') },
        format: 'jwk',
      });
      const crypto = new CryptographyClient(key, credential, options);
      return {
        publicKey,
        algorithm: { key: 'rsa', padding: 'pkcs1', hash: 'sha256' },
        sign: async (data) => {
          try {
            const signed = await crypto.sign('RS256', createHash('sha256').update(data).digest());
            return Buffer.from(signed.result);
          } catch (error) {
            throw reason(error);
          }
        },
      };
    } catch (error) {
      throw reason(error);
    }
  }

  async close(): Promise<void> {
    this.clients.clear();
  }
}
