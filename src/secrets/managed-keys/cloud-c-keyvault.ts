import { badRequest } from '../../core/errors.js';
import type { CloudCConfig, CloudCKeyVaultAdapter } from '../../adapters/kms/cloud-c/adapter.js';
import { KmsError } from '../../adapters/kms/types.js';
import {
  checkKeyBits,
  MASKED,
  merged,
  requireSetting,
  type KeyParams,
  type KeyTypeDefinition,
  type KeyTypeEnvironment,
} from './definition.js';

const FIELDS = {
  tenant_id: { type: 'string', description: 'Directory (tenant) id.' },
  client_id: { type: 'string', description: 'Application id; empty with client_secret for managed identity.' },
  client_secret: { type: 'string', description: 'Application secret; never returned.' },
  environment: {
    type: 'string',
    description: 'Cloud environment name, an http(s) URL of a compatible service, or empty for the built-in stand-in.',
    default: '',
  },
  vault_name: { type: 'string', description: 'Key vault holding the key.' },
  key_name: { type: 'string', description: 'Name of the key in the vault.' },
  resource: { type: 'string', description: 'Key vault DNS suffix (managed HSM: its own).', default: '' },
  key_bits: { type: 'int', description: '2048, 3072 or 4096 (generating keys).', default: 0 },
  key_type: { type: 'string', description: 'RSA only.' },
} as const;

/** The provider's named environments: login host and key vault DNS suffix. */
const ENVIRONMENTS: Record<string, { authorityHost: string; vaultSuffix: string }> = {
  AzurePublicCloud: { authorityHost: 'https://login.microsoftonline.com', vaultSuffix: 'vault.azure.net' },
  AzureUSGovernmentCloud: { authorityHost: 'https://login.microsoftonline.us', vaultSuffix: 'vault.usgovcloudapi.net' },
  AzureChinaCloud: { authorityHost: 'https://login.chinacloudapi.cn', vaultSuffix: 'vault.azure.cn' },
};

/** Where the built-in stand-in issues tokens; its vault answers at this server's root (`/keys/…`). */
export const CLOUD_C_STAND_IN_PATH = '/_emulator/cloud-c-keyvault';

/** The vault and token service a key's settings point at. */
function target(params: KeyParams, environment: KeyTypeEnvironment): Pick<CloudCConfig, 'vaultUrl' | 'authority'> {
  const name = String(params['environment']);
  const tenant = encodeURIComponent(String(params['tenant_id']));
  const named = ENVIRONMENTS[name];
  if (named) {
    const suffix = String(params['resource']) || named.vaultSuffix;
    return {
      vaultUrl: `https://${String(params['vault_name'])}.${suffix}`,
      authority: { kind: 'provider', authorityHost: named.authorityHost },
    };
  }
  if (name !== '') {
    const base = name.replace(/\/+$/, '');
    return { vaultUrl: new URL(base).origin, authority: { kind: 'stand-in', tokenUrl: `${base}/${tenant}/oauth2/v2.0/token` } };
  }
  let local: string;
  try {
    local = environment.localBaseUrl();
  } catch (error) {
    throw new KmsError((error as Error).message);
  }
  return { vaultUrl: local, authority: { kind: 'stand-in', tokenUrl: `${local}${CLOUD_C_STAND_IN_PATH}/${tenant}/oauth2/v2.0/token` } };
}

/** `cloud-c-keyvault`: an RSA key in cloud provider C's key vault, or in understudy's stand-in for it. */
export function cloudCKeyVaultKeyType(): KeyTypeDefinition {
  // The SDK takes a second or two to import: loaded on first use, not at every start.
  let adapter: Promise<CloudCKeyVaultAdapter> | undefined;
  const load = () => (adapter ??= import('../../adapters/kms/cloud-c/adapter.js').then((module) => new module.CloudCKeyVaultAdapter()));
  return {
    fields: FIELDS,
    params(fields, stored, policy) {
      const params: KeyParams = {};
      for (const [name, spec] of Object.entries(FIELDS))
        params[name] = merged(fields, stored, name, ('default' in spec ? spec.default : '') as string | number);
      const text = (name: string) => String(params[name]);
      requireSetting(text('tenant_id'), 'tenant_id');
      if ((text('client_id') === '') !== (text('client_secret') === '')) {
        throw badRequest('client_id and client_secret go together (leave both empty to use the managed identity)');
      }
      requireSetting(text('vault_name'), 'vault_name');
      requireSetting(text('key_name'), 'key_name');
      params['key_type'] = text('key_type').toUpperCase();
      requireSetting(text('key_type'), 'key_type');
      if (params['key_type'] !== 'RSA') throw badRequest(`key_type must be RSA, got "${text('key_type')}"`);
      checkKeyBits(Number(params['key_bits']));
      if (policy.allowGenerate && params['key_bits'] === 0) throw badRequest('key_bits is required when allow_generate_key is true');
      const env = text('environment');
      if (env !== '' && !ENVIRONMENTS[env] && !/^https?:\/\/[^/]/.test(env)) {
        throw badRequest(
          `environment must be one of ${Object.keys(ENVIRONMENTS).join(', ')}, an http(s) URL, or empty for the built-in stand-in`,
        );
      }
      return params;
    },
    wire(params) {
      return {
        tenant_id: params['tenant_id'],
        client_id: params['client_id'],
        client_secret: params['client_secret'] === '' ? '' : MASKED,
        environment: params['environment'],
        vault_name: params['vault_name'],
        key_name: params['key_name'],
        resource: params['resource'],
        key_bits: params['key_bits'],
        key_type: params['key_type'],
      };
    },
    open(params, policy, environment) {
      return load().then((loaded) =>
        loaded.open(
          {
            ...target(params, environment),
            tenantId: String(params['tenant_id']),
            clientId: String(params['client_id']),
            clientSecret: String(params['client_secret']),
            keyName: String(params['key_name']),
            keyBits: Number(params['key_bits']) || 2048,
          },
          policy,
        ),
      );
    },
    close: async () => (adapter ? (await adapter).close() : undefined),
  };
}
