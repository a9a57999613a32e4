import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { constants, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

/** Test keys and tokens for the JWT auth method, made here with node:crypto, independently of the server. */

export interface TestKey {
  kid: string;
  alg: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export function rsaKey(kid: string, alg = 'RS256'): TestKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, alg, privateKey, publicKey };
}

export function ecKey(kid: string, alg = 'ES256'): TestKey {
  const namedCurve = alg === 'ES384' ? 'secp384r1' : alg === 'ES512' ? 'secp521r1' : 'prime256v1';
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve });
  return { kid, alg, privateKey, publicKey };
}

export function edKey(kid: string): TestKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { kid, alg: 'EdDSA', privateKey, publicKey };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A compact JWS over `claims`; `header` adds to (or, with `kid: undefined`, drops from) the usual header. */
export function signJwt(key: TestKey, claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const fullHeader = JSON.parse(JSON.stringify({ typ: 'JWT', alg: key.alg, kid: key.kid, ...header })) as Record<string, unknown>;
  const input = `${b64(fullHeader)}.${b64(claims)}`;
  const digest = key.alg === 'EdDSA' ? null : `sha${key.alg.slice(2)}`;
  const options = key.alg.startsWith('ES')
    ? { key: key.privateKey, dsaEncoding: 'ieee-p1363' as const }
    : key.alg.startsWith('PS')
      ? { key: key.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }
      : key.privateKey;
  return `${input}.${sign(digest, Buffer.from(input), options).toString('base64url')}`;
}

export const publicJwk = (key: TestKey) => ({ ...key.publicKey.export({ format: 'jwk' }), kid: key.kid, use: 'sig', alg: key.alg });
export const publicPem = (key: TestKey) => key.publicKey.export({ type: 'spki', format: 'pem' }).toString();

/**
 * A tiny identity provider on a real socket: its discovery document (issuer = its base URL) and
 * JWKS, with the requests to each counted, and the key set changeable while it runs.
 */
export class KeyServer {
  keys: TestKey[] = [];
  jwksRequests = 0;
  discoveryRequests = 0;
  /** Answers for paths the test adds (the OIDC flow's token endpoint). */
  readonly routes = new Map<string, (request: IncomingMessage, body: string, response: ServerResponse) => void>();
  jwksStatus = 200;
  private server: Server | undefined;
  baseUrl = '';

  /** Listens on a loopback port; with `tls` (PEM key and certificate), over HTTPS. */
  async start(tls?: { key: string; cert: string }): Promise<this> {
    const handler = (request: IncomingMessage, response: ServerResponse) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => this.answer(request, body, response));
    };
    this.server = tls ? createTlsServer(tls, handler) : createServer(handler);
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address() as { port: number };
    this.baseUrl = `${tls ? 'https' : 'http'}://127.0.0.1:${address.port}`;
    return this;
  }

  private answer(request: IncomingMessage, body: string, response: ServerResponse): void {
    const path = new URL(request.url ?? '/', this.baseUrl).pathname;
    const json = (status: number, value: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(value));
    };
    if (path === '/.well-known/openid-configuration') {
      this.discoveryRequests += 1;
      json(200, {
        issuer: this.baseUrl,
        jwks_uri: `${this.baseUrl}/keys`,
        authorization_endpoint: `${this.baseUrl}/authorize`,
        token_endpoint: `${this.baseUrl}/token`,
        response_types_supported: ['code', 'id_token'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    } else if (path === '/keys') {
      this.jwksRequests += 1;
      if (this.jwksStatus !== 200) json(this.jwksStatus, { error: 'nope' });
      else json(200, { keys: this.keys.map(publicJwk) });
    } else {
      const route = this.routes.get(path);
      if (route) route(request, body, response);
      else json(404, { error: 'not found' });
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
