import { constants, createPrivateKey, createPublicKey, privateEncrypt, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Runtime } from '../../runtime.js';
import { MountStorage } from '../../secrets/storage/mount-storage.js';
import { generatePrivateKeyPem } from './keys.js';

/**
 * A stand-in for cloud provider C's key vault REST API, enough for managed keys: create an RSA
 * key, get it, sign a digest (RS256/384/512). The provider's SDK takes the vault from the key id's
 * origin and path (`/keys/{name}/{version}`), so the vault answers at this server's root; the
 * token service (client-credentials grant) is under `/_emulator/cloud-c-keyvault`. Requests
 * without a token get the provider's bearer challenge. Keys live in the store; tokens in memory.
 */

const STORAGE = 'stand-in-cloud-c-keyvault';
const TOKEN_PREFIX = '/_emulator/cloud-c-keyvault';
const TOKEN_LIFETIME_SECONDS = 3600;
const RESOURCE = 'https://vault.azure.net';

interface StoredVersion {
  version: string;
  privatePem: string;
  created: number;
}

interface StoredKey {
  name: string;
  keyOps: string[];
  versions: StoredVersion[];
}

/** DigestInfo prefixes for PKCS#1 v1.5 signatures over a given digest. */
const DIGESTS: Record<string, { length: number; prefix: string }> = {
  RS256: { length: 32, prefix: '3031300d060960864801650304020105000420' },
  RS384: { length: 48, prefix: '3041300d060960864801650304020205000430' },
  RS512: { length: 64, prefix: '3051300d060960864801650304020305000440' },
};

const vaultError = (reply: FastifyReply, status: number, code: string, message: string) =>
  reply.code(status).send({ error: { code, message } });

const originOf = (request: FastifyRequest) => `${request.protocol}://${request.headers.host ?? '127.0.0.1'}`;

export async function cloudCKeyVaultStandIn(app: FastifyInstance, runtime: Runtime): Promise<void> {
  const storage = () => new MountStorage(runtime.store.db, STORAGE);
  /** Issued tokens and their expiry (wall clock: the SDK caches tokens by real time). */
  const tokens = new Map<string, number>();

  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, {});
    try {
      done(null, JSON.parse(String(body)));
    } catch {
      done(null, null);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  app.post<{ Params: { tenant: string }; Body: Record<string, string> | null }>(
    `${TOKEN_PREFIX}/:tenant/oauth2/v2.0/token`,
    async (request, reply) => {
      const form = request.body ?? {};
      if (form['grant_type'] !== 'client_credentials')
        return reply.code(400).send({ error: 'unsupported_grant_type', error_description: 'only client_credentials' });
      if (!form['client_id'] || !form['client_secret'])
        return reply.code(401).send({ error: 'invalid_client', error_description: 'client_id and client_secret are required' });
      const token = `stand-in.${randomBytes(24).toString('base64url')}`;
      tokens.set(token, Date.now() + TOKEN_LIFETIME_SECONDS * 1000);
      return { token_type: 'Bearer', expires_in: TOKEN_LIFETIME_SECONDS, ext_expires_in: TOKEN_LIFETIME_SECONDS, access_token: token };
    },
  );

  /** Every vault request needs a token the stand-in issued; otherwise the provider's challenge. */
  const challenge = async (request: FastifyRequest, reply: FastifyReply) => {
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    const expiry = token === undefined ? undefined : tokens.get(token);
    if (expiry !== undefined && expiry > Date.now()) return;
    const authority = `${originOf(request)}${TOKEN_PREFIX}/understudy`;
    return reply
      .code(401)
      .header('www-authenticate', `Bearer authorization="${authority}", resource="${RESOURCE}"`)
      .send({ error: { code: 'Unauthorized', message: 'AKV10000: Request is missing a Bearer or PoP token.' } });
  };

  const bundle = (request: FastifyRequest, key: StoredKey, version: StoredVersion) => {
    const jwk = createPublicKey(version.privatePem).export({ format: 'jwk' });
    return {
      key: { kid: `${originOf(request)}/keys/${key.name}/${version.version}`, kty: 'RSA', key_ops: key.keyOps, n: jwk.n, e: jwk.e },
      attributes: {
        enabled: true,
        created: version.created,
        updated: version.created,
        recoveryLevel: 'Recoverable+Purgeable',
        recoverableDays: 90,
      },
      tags: {},
    };
  };

  const find = (name: string, version?: string) => {
    const key = storage().get<StoredKey>(`keys/${name}`);
    const found = version ? key?.versions.find((candidate) => candidate.version === version) : key?.versions.at(-1);
    return key && found ? { key, version: found } : undefined;
  };
  const notFound = (reply: FastifyReply, name: string) =>
    vaultError(reply, 404, 'KeyNotFound', `A key with (name/id) ${name} was not found in this key vault.`);

  type Named = { Params: { name: string; version?: string }; Body: Record<string, unknown> | null };

  app.post<Named>('/keys/:name/create', { onRequest: challenge }, async (request, reply) => {
    const body = request.body ?? {};
    const kty = String(body['kty'] ?? '');
    if (kty !== 'RSA' && kty !== 'RSA-HSM') return vaultError(reply, 400, 'BadParameter', `the stand-in keeps RSA keys only, not "${kty}"`);
    const bits = Number(body['key_size'] ?? 2048);
    if (![2048, 3072, 4096].includes(bits)) return vaultError(reply, 400, 'BadParameter', `key_size ${bits} is not supported`);
    const name = request.params.name;
    const existing = storage().get<StoredKey>(`keys/${name}`);
    const keyOps = Array.isArray(body['key_ops']) ? body['key_ops'].map(String) : ['sign', 'verify'];
    const version: StoredVersion = {
      version: randomBytes(16).toString('hex'),
      privatePem: await generatePrivateKeyPem({ rsaBits: bits }),
      created: Math.floor(runtime.clock.nowMs() / 1000),
    };
    const key: StoredKey = { name, keyOps, versions: [...(existing?.versions ?? []), version] };
    storage().put(`keys/${name}`, key);
    return bundle(request, key, version);
  });

  const getKey = async (request: FastifyRequest<Named>, reply: FastifyReply) => {
    const found = find(request.params.name, request.params.version);
    if (!found) return notFound(reply, request.params.name);
    return bundle(request, found.key, found.version);
  };
  app.get<Named>('/keys/:name', { onRequest: challenge }, getKey);
  app.get<Named>('/keys/:name/:version', { onRequest: challenge }, getKey);

  app.post<Named>('/keys/:name/:version/sign', { onRequest: challenge }, async (request, reply) => {
    const found = find(request.params.name, request.params.version);
    if (!found) return notFound(reply, request.params.name);
    if (!found.key.keyOps.includes('sign')) return vaultError(reply, 403, 'Forbidden', 'Operation sign is not permitted on this key.');
    const body = request.body ?? {};
    const digestSpec = DIGESTS[String(body['alg'] ?? '')];
    if (!digestSpec) return vaultError(reply, 400, 'BadParameter', `the stand-in signs with ${Object.keys(DIGESTS).join(', ')} only`);
    const digest = Buffer.from(String(body['value'] ?? ''), 'base64url');
    if (digest.length !== digestSpec.length)
      return vaultError(reply, 400, 'BadParameter', `the digest must be ${digestSpec.length} bytes for ${String(body['alg'])}`);
    const signature = privateEncrypt(
      { key: createPrivateKey(found.version.privatePem), padding: constants.RSA_PKCS1_PADDING },
      Buffer.concat([Buffer.from(digestSpec.prefix, 'hex'), digest]),
    );
    return { kid: `${originOf(request)}/keys/${found.key.name}/${found.version.version}`, value: signature.toString('base64url') };
  });
}
