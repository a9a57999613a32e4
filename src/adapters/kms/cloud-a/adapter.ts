import { createPublicKey } from 'node:crypto';
import type { KeySpec, KMSClient, SigningAlgorithmSpec } from '@aws-sdk/client-kms';
import { ClientCache, KmsError, type KeyPolicy, type KmsAdapter, type KmsSigner, type SigningAlgorithm } from '../types.js';

/** What a `cloud-a-kms` managed key gives the adapter. */
export interface CloudAConfig {
  endpoint: string;
  region: string;
  accessKey: string;
  secretKey: string;
  /** Key id, key ARN, alias name or alias ARN; an alias when generation is allowed. */
  kmsKey: string;
  keyType: 'RSA' | 'ECDSA';
  keyBits: number;
  curve: string;
}

/** The SDK takes about a second to load: imported on first use (the bundle leaves it outside). */
let sdkLoaded: Promise<typeof import('@aws-sdk/client-kms')> | undefined;
const sdk = () => (sdkLoaded ??= import('@aws-sdk/client-kms'));

const CURVE_SPECS: Record<string, KeySpec> = { P256: 'ECC_NIST_P256', P384: 'ECC_NIST_P384', P521: 'ECC_NIST_P521' };

/** The signing algorithm the key's spec calls for: PKCS#1 v1.5 for RSA, ECDSA with the curve's hash. */
function algorithmFor(spec: string | undefined): { wire: SigningAlgorithmSpec; algorithm: SigningAlgorithm } {
  if (spec?.startsWith('RSA_')) return { wire: 'RSASSA_PKCS1_V1_5_SHA_256', algorithm: { key: 'rsa', padding: 'pkcs1', hash: 'sha256' } };
  if (spec === 'ECC_NIST_P256') return { wire: 'ECDSA_SHA_256', algorithm: { key: 'ec', hash: 'sha256' } };
  if (spec === 'ECC_NIST_P384') return { wire: 'ECDSA_SHA_384', algorithm: { key: 'ec', hash: 'sha384' } };
  if (spec === 'ECC_NIST_P521') return { wire: 'ECDSA_SHA_512', algorithm: { key: 'ec', hash: 'sha512' } };
  throw new KmsError(`the key's spec ${spec ?? '(none)'} cannot sign`);
}

/** The service's reason: its exception name and message. */
function reason(error: unknown): KmsError {
  if (error instanceof KmsError) return error;
  const named = error as { name?: string; message?: string };
  return new KmsError(`${named.name ?? 'Error'}: ${named.message ?? String(error)}`);
}

/** Cloud provider A's key service through its official SDK client, over HTTP. */
export class CloudAKmsAdapter implements KmsAdapter<CloudAConfig> {
  private readonly clients = new ClientCache<KMSClient>();

  async open(config: CloudAConfig, policy: KeyPolicy): Promise<KmsSigner> {
    const { CreateAliasCommand, CreateKeyCommand, DescribeKeyCommand, GetPublicKeyCommand, KMSClient, NotFoundException, SignCommand } =
      await sdk();
    const settings = JSON.stringify([config.endpoint, config.region, config.accessKey, config.secretKey]);
    const client = this.clients.get(
      settings,
      () =>
        new KMSClient({
          region: config.region,
          endpoint: config.endpoint,
          credentials: { accessKeyId: config.accessKey, secretAccessKey: config.secretKey },
          maxAttempts: 1,
        }),
    );
    try {
      let keyId: string | undefined;
      try {
        keyId = (await client.send(new DescribeKeyCommand({ KeyId: config.kmsKey }))).KeyMetadata?.KeyId;
      } catch (error) {
        if (!(error instanceof NotFoundException) || !policy.allowGenerate) throw error;
        keyId = await this.generate(client, config, CreateKeyCommand, CreateAliasCommand);
      }
      if (!keyId) throw new KmsError(`key ${config.kmsKey} has no key id`);
      const found = await client.send(new GetPublicKeyCommand({ KeyId: keyId }));
      if (found.KeyUsage !== 'SIGN_VERIFY')
        throw new KmsError(`key ${config.kmsKey} is for ${found.KeyUsage ?? 'unknown use'}, not SIGN_VERIFY`);
      if (!found.PublicKey) throw new KmsError(`key ${config.kmsKey} returned no public key`);
      const { wire, algorithm } = algorithmFor(found.KeySpec);
      const publicKey = createPublicKey({ key: Buffer.from(found.PublicKey), format: 'der', type: 'spki' });
      const signingKeyId = keyId;
      return {
        publicKey,
        algorithm,
        sign: async (data) => {
          try {
            const signed = await client.send(
              new SignCommand({ KeyId: signingKeyId, Message: data, MessageType: 'RAW', SigningAlgorithm: wire }),
            );
            if (!signed.Signature) throw new KmsError('the service returned no signature');
            return Buffer.from(signed.Signature);
          } catch (error) {
            throw reason(error);
          }
        },
      };
    } catch (error) {
      throw reason(error);
    }
  }

  /** CreateKey with the configured spec, then CreateAlias so the configured alias finds it. */
  private async generate(
    client: KMSClient,
    config: CloudAConfig,
    CreateKeyCommand: typeof import('@aws-sdk/client-kms').CreateKeyCommand,
    CreateAliasCommand: typeof import('@aws-sdk/client-kms').CreateAliasCommand,
  ): Promise<string> {
    const keySpec: KeySpec | undefined = config.keyType === 'RSA' ? (`RSA_${config.keyBits}` as KeySpec) : CURVE_SPECS[config.curve];
    if (!keySpec) throw new KmsError(`cannot generate a ${config.keyType} key without key_bits or curve`);
    const created = await client.send(
      new CreateKeyCommand({ KeySpec: keySpec, KeyUsage: 'SIGN_VERIFY', Description: `managed key ${config.kmsKey}` }),
    );
    const keyId = created.KeyMetadata?.KeyId;
    if (!keyId) throw new KmsError('CreateKey returned no key id');
    await client.send(new CreateAliasCommand({ AliasName: config.kmsKey, TargetKeyId: keyId }));
    return keyId;
  }

  async close(): Promise<void> {
    for (const client of this.clients.clear()) client.destroy();
  }
}
