import { badRequest } from '../../core/errors.js';
import type { CloudAKmsAdapter } from '../../adapters/kms/cloud-a/adapter.js';
import { KmsError } from '../../adapters/kms/types.js';
import {
  checkCurve,
  checkKeyBits,
  MASKED,
  merged,
  requireSetting,
  type KeyParams,
  type KeyTypeDefinition,
  type KeyTypeEnvironment,
} from './definition.js';

const FIELDS = {
  access_key: { type: 'string', description: 'Access key id; else AWS_ACCESS_KEY_ID. Never returned.' },
  secret_key: { type: 'string', description: 'Secret access key; else AWS_SECRET_ACCESS_KEY. Never returned.' },
  curve: { type: 'string', description: 'P256, P384 or P521 (generating ECDSA keys).', default: '' },
  endpoint: { type: 'string', description: 'Service endpoint; empty means the built-in stand-in.', default: '' },
  key_bits: { type: 'int', description: '2048, 3072 or 4096 for RSA.', default: 0 },
  key_type: { type: 'string', description: 'RSA or ECDSA.' },
  kms_key: { type: 'string', description: 'Key id, ARN or alias; an alias when generating.' },
  region: { type: 'string', description: 'Region; else AWS_REGION, AWS_DEFAULT_REGION, us-east-1.', default: '' },
} as const;

/** Where the stand-in answers (an `endpoint` left empty). */
export const CLOUD_A_STAND_IN_PATH = '/_emulator/cloud-a-kms';

function credentials(params: KeyParams, env: KeyTypeEnvironment['env']): { accessKey: string; secretKey: string } {
  return {
    accessKey: String(params['access_key'] || env['AWS_ACCESS_KEY_ID'] || ''),
    secretKey: String(params['secret_key'] || env['AWS_SECRET_ACCESS_KEY'] || ''),
  };
}

/** `cloud-a-kms`: a signing key in cloud provider A's key service, or in understudy's stand-in for it. */
export function cloudAKmsKeyType(): KeyTypeDefinition {
  // The SDK takes a second or two to import: loaded on first use, not at every start.
  let adapter: Promise<CloudAKmsAdapter> | undefined;
  const load = () => (adapter ??= import('../../adapters/kms/cloud-a/adapter.js').then((module) => new module.CloudAKmsAdapter()));
  return {
    fields: FIELDS,
    params(fields, stored, policy, environment) {
      const params: KeyParams = {};
      for (const [name, spec] of Object.entries(FIELDS))
        params[name] = merged(fields, stored, name, ('default' in spec ? spec.default : '') as string | number);
      const keyType = String(params['key_type']).toUpperCase();
      params['key_type'] = keyType;
      const { accessKey, secretKey } = credentials(params, environment.env);
      requireSetting(accessKey, 'access_key', ' (or AWS_ACCESS_KEY_ID in the server environment)');
      requireSetting(secretKey, 'secret_key', ' (or AWS_SECRET_ACCESS_KEY in the server environment)');
      requireSetting(keyType, 'key_type');
      if (keyType !== 'RSA' && keyType !== 'ECDSA') throw badRequest(`key_type must be RSA or ECDSA, got "${keyType}"`);
      checkKeyBits(Number(params['key_bits']));
      checkCurve(String(params['curve']));
      if (keyType === 'RSA' && params['key_bits'] === 0) throw badRequest('key_bits is required when key_type is RSA');
      if (keyType === 'ECDSA' && policy.allowGenerate)
        requireSetting(String(params['curve']), 'curve', ' when allow_generate_key is true and key_type is ECDSA');
      const kmsKey = String(params['kms_key']);
      requireSetting(kmsKey, 'kms_key');
      if (policy.allowGenerate && !kmsKey.startsWith('alias/'))
        throw badRequest('kms_key must be an alias (alias/…) when allow_generate_key is true');
      const endpoint = String(params['endpoint']);
      if (endpoint !== '' && !/^https?:\/\/[^/]/.test(endpoint))
        throw badRequest(`endpoint must be an http or https URL, got "${endpoint}"`);
      return params;
    },
    wire(params) {
      return {
        access_key: params['access_key'] === '' ? '' : MASKED,
        secret_key: params['secret_key'] === '' ? '' : MASKED,
        curve: params['curve'],
        endpoint: params['endpoint'],
        key_bits: params['key_bits'],
        key_type: params['key_type'],
        kms_key: params['kms_key'],
        region: params['region'] === '' ? 'us-east-1' : params['region'],
      };
    },
    open(params, policy, environment) {
      const endpoint = String(params['endpoint']);
      let resolvedEndpoint: string;
      try {
        resolvedEndpoint = endpoint === '' ? `${environment.localBaseUrl()}${CLOUD_A_STAND_IN_PATH}` : endpoint;
      } catch (error) {
        throw new KmsError((error as Error).message);
      }
      return load().then((loaded) =>
        loaded.open(
          {
            endpoint: resolvedEndpoint,
            region: String(params['region'] || environment.env['AWS_REGION'] || environment.env['AWS_DEFAULT_REGION'] || 'us-east-1'),
            ...credentials(params, environment.env),
            kmsKey: String(params['kms_key']),
            keyType: params['key_type'] === 'RSA' ? 'RSA' : 'ECDSA',
            keyBits: Number(params['key_bits']),
            curve: String(params['curve']),
          },
          policy,
        ),
      );
    },
    close: async () => (adapter ? (await adapter).close() : undefined),
  };
}
