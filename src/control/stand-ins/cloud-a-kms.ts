import { createPrivateKey, createPublicKey, randomUUID, sign as signWith, constants } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Runtime } from '../../runtime.js';
import { MountStorage } from '../../secrets/storage/mount-storage.js';
import { generatePrivateKeyPem } from './keys.js';

/**
 * A stand-in for cloud provider A's key service (its JSON protocol, `X-Amz-Target:
 * TrentService.<Operation>`), enough for managed keys: CreateKey, CreateAlias, DescribeKey,
 * GetPublicKey, Sign, ListAliases. Request signatures are accepted but not checked; the region is
 * read from the signature's credential scope. Keys live in the store.
 */

const ACCOUNT = '000000000000';
const STORAGE = 'stand-in-cloud-a-kms';
/** The service's limit for a RAW message. */
const MAX_RAW_MESSAGE = 4096;

interface StoredKey {
  keyId: string;
  region: string;
  keySpec: string;
  description: string;
  created: number;
  privatePem: string;
}

const SPECS: Record<string, { generate: { rsaBits: number } | { curve: string }; algorithms: string[] }> = {
  RSA_2048: { generate: { rsaBits: 2048 }, algorithms: rsaAlgorithms() },
  RSA_3072: { generate: { rsaBits: 3072 }, algorithms: rsaAlgorithms() },
  RSA_4096: { generate: { rsaBits: 4096 }, algorithms: rsaAlgorithms() },
  ECC_NIST_P256: { generate: { curve: 'P-256' }, algorithms: ['ECDSA_SHA_256'] },
  ECC_NIST_P384: { generate: { curve: 'P-384' }, algorithms: ['ECDSA_SHA_384'] },
  ECC_NIST_P521: { generate: { curve: 'P-521' }, algorithms: ['ECDSA_SHA_512'] },
};

function rsaAlgorithms(): string[] {
  return ['SHA_256', 'SHA_384', 'SHA_512'].flatMap((hash) => [`RSASSA_PSS_${hash}`, `RSASSA_PKCS1_V1_5_${hash}`]);
}

class KmsFault extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** Aliases contain slashes; one storage key each, so listing finds them all. */
const aliasKey = (aliasName: string) => `aliases/${encodeURIComponent(aliasName)}`;

const arnOf = (key: StoredKey) => `arn:aws:kms:${key.region}:${ACCOUNT}:key/${key.keyId}`;

function metadata(key: StoredKey) {
  return {
    AWSAccountId: ACCOUNT,
    KeyId: key.keyId,
    Arn: arnOf(key),
    CreationDate: key.created,
    Enabled: true,
    Description: key.description,
    KeyUsage: 'SIGN_VERIFY',
    KeyState: 'Enabled',
    Origin: 'AWS_KMS',
    KeyManager: 'CUSTOMER',
    KeySpec: key.keySpec,
    CustomerMasterKeySpec: key.keySpec,
    SigningAlgorithms: SPECS[key.keySpec]?.algorithms ?? [],
    MultiRegion: false,
  };
}

/** The region of the request's SigV4 credential scope, when it is signed. */
function regionOf(authorization: string | undefined): string {
  return /Credential=[^/]+\/\d{8}\/([^/]+)\/kms\//.exec(authorization ?? '')?.[1] ?? 'us-east-1';
}

function signingParameters(algorithm: string): { hash: string; options: { padding?: number; saltLength?: number; dsaEncoding?: 'der' } } {
  const match = /^(RSASSA_PSS|RSASSA_PKCS1_V1_5|ECDSA)_SHA_(256|384|512)$/.exec(algorithm);
  if (!match)
    throw new KmsFault(
      'ValidationException',
      `1 validation error detected: Value '${algorithm}' at 'signingAlgorithm' failed to satisfy constraint`,
    );
  const hash = `sha${match[2]}`;
  if (match[1] === 'ECDSA') return { hash, options: { dsaEncoding: 'der' } };
  if (match[1] === 'RSASSA_PSS')
    return { hash, options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST } };
  return { hash, options: { padding: constants.RSA_PKCS1_PADDING } };
}

export async function cloudAKmsStandIn(app: FastifyInstance, runtime: Runtime): Promise<void> {
  const storage = () => new MountStorage(runtime.store.db, STORAGE);

  const keyOf = (keyIdInput: unknown): StoredKey => {
    const keyId = String(keyIdInput ?? '');
    if (keyId === '') throw new KmsFault('ValidationException', 'KeyId is required');
    const aliasName = /(?:^|:)(alias\/.+)$/.exec(keyId)?.[1];
    const id = aliasName !== undefined ? storage().get<string>(aliasKey(aliasName)) : (/key\/([^/]+)$/.exec(keyId)?.[1] ?? keyId);
    const key = id === undefined ? undefined : storage().get<StoredKey>(`keys/${id}`);
    if (!key)
      throw new KmsFault('NotFoundException', aliasName !== undefined ? `Alias ${keyId} is not found.` : `Key '${keyId}' does not exist`);
    return key;
  };

  const operations: Record<string, (body: Record<string, unknown>, region: string) => Promise<unknown> | unknown> = {
    CreateKey: async (body, region) => {
      const keySpec = String(body['KeySpec'] ?? body['CustomerMasterKeySpec'] ?? 'SYMMETRIC_DEFAULT');
      const usage = String(body['KeyUsage'] ?? 'ENCRYPT_DECRYPT');
      const spec = SPECS[keySpec];
      if (!spec || usage !== 'SIGN_VERIFY') {
        throw new KmsFault(
          'ValidationException',
          `the stand-in keeps signing keys only: KeyUsage SIGN_VERIFY with KeySpec ${Object.keys(SPECS).join(', ')}`,
        );
      }
      const key: StoredKey = {
        keyId: randomUUID(),
        region,
        keySpec,
        description: String(body['Description'] ?? ''),
        created: Math.floor(runtime.clock.nowMs() / 1000),
        privatePem: await generatePrivateKeyPem(spec.generate),
      };
      storage().put(`keys/${key.keyId}`, key);
      return { KeyMetadata: metadata(key) };
    },
    CreateAlias: (body) => {
      const aliasName = String(body['AliasName'] ?? '');
      if (!/^alias\/[a-zA-Z0-9/_-]+$/.test(aliasName) || aliasName.startsWith('alias/aws/')) {
        throw new KmsFault(
          'ValidationException',
          `Alias must start with the prefix "alias/" and use only a-z, A-Z, 0-9, /, _ and -: ${aliasName}`,
        );
      }
      const key = keyOf(body['TargetKeyId']);
      if (storage().get(aliasKey(aliasName)) !== undefined)
        throw new KmsFault('AlreadyExistsException', `An alias with the name ${arnOf(key).replace(/key\/.*/, aliasName)} already exists`);
      storage().put(aliasKey(aliasName), key.keyId);
      return undefined;
    },
    DescribeKey: (body) => ({ KeyMetadata: metadata(keyOf(body['KeyId'])) }),
    GetPublicKey: (body) => {
      const key = keyOf(body['KeyId']);
      const publicKey = createPublicKey(key.privatePem).export({ type: 'spki', format: 'der' });
      return {
        KeyId: arnOf(key),
        PublicKey: publicKey.toString('base64'),
        KeySpec: key.keySpec,
        CustomerMasterKeySpec: key.keySpec,
        KeyUsage: 'SIGN_VERIFY',
        SigningAlgorithms: SPECS[key.keySpec]?.algorithms ?? [],
      };
    },
    Sign: (body) => {
      const key = keyOf(body['KeyId']);
      const algorithm = String(body['SigningAlgorithm'] ?? '');
      if (!(SPECS[key.keySpec]?.algorithms ?? []).includes(algorithm)) {
        throw new KmsFault('InvalidKeyUsageException', `You cannot use the signing algorithm ${algorithm} with a ${key.keySpec} key`);
      }
      if ((body['MessageType'] ?? 'RAW') !== 'RAW') throw new KmsFault('ValidationException', 'the stand-in signs RAW messages only');
      const message = Buffer.from(String(body['Message'] ?? ''), 'base64');
      if (message.length === 0 || message.length > MAX_RAW_MESSAGE)
        throw new KmsFault('ValidationException', `Message must be 1 to ${MAX_RAW_MESSAGE} bytes`);
      const { hash, options } = signingParameters(algorithm);
      const signature = signWith(hash, message, { key: createPrivateKey(key.privatePem), ...options });
      return { KeyId: arnOf(key), Signature: signature.toString('base64'), SigningAlgorithm: algorithm };
    },
    ListAliases: (body) => {
      const names = storage().list('aliases/').map(decodeURIComponent);
      const aliases = names.flatMap((aliasName) => {
        const keyId = storage().get<string>(aliasKey(aliasName));
        const key = keyId === undefined ? undefined : storage().get<StoredKey>(`keys/${keyId}`);
        return key && (body['KeyId'] === undefined || key.keyId === keyOf(body['KeyId']).keyId)
          ? [{ AliasName: aliasName, AliasArn: `arn:aws:kms:${key.region}:${ACCOUNT}:${aliasName}`, TargetKeyId: key.keyId }]
          : [];
      });
      return { Aliases: aliases, Truncated: false };
    },
  };

  const reply = (response: FastifyReply, status: number, body: unknown) =>
    response
      .code(status)
      .header('content-type', 'application/x-amz-json-1.1')
      .send(body === undefined ? '' : JSON.stringify(body));

  app.addContentTypeParser(['application/x-amz-json-1.1', 'application/json'], { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, {});
    try {
      done(null, JSON.parse(String(body)));
    } catch {
      done(null, null);
    }
  });

  app.post('/cloud-a-kms', async (request, response) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const operation = operations[target.replace(/^TrentService\./, '')];
    if (!target.startsWith('TrentService.') || !operation)
      return reply(response, 400, { __type: 'UnknownOperationException', message: `unknown operation ${target}` });
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return reply(response, 400, { __type: 'SerializationException', message: 'the body is not a JSON object' });
    try {
      return reply(response, 200, await operation(body as Record<string, unknown>, regionOf(request.headers.authorization)));
    } catch (error) {
      if (error instanceof KmsFault) return reply(response, 400, { __type: error.type, message: error.message });
      throw error;
    }
  });
}
