import { badRequest } from '../../../core/errors.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { nameOf, type KeyDependencies } from './paths-keys.js';
import { newVersion, readPolicy, writePolicy, type KeyPolicy } from './policy.js';
import { keyView } from './view.js';

const HOUR_SECONDS = 3600;

const CONFIG_FIELDS: Record<string, FieldSpec> = {
  min_decryption_version: { type: 'int', description: 'Oldest version that may decrypt, verify and export.', default: 0 },
  min_encryption_version: { type: 'int', description: 'Oldest version that may encrypt and sign (0: the latest).', default: 0 },
  deletion_allowed: { type: 'bool', description: 'Whether the key may be deleted.', default: false },
  exportable: { type: 'bool', description: 'Allow export (cannot be unset).', default: false },
  allow_plaintext_backup: { type: 'bool', description: 'Allow a plaintext backup (cannot be unset).', default: false },
  auto_rotate_period: { type: 'duration', description: 'Rotate automatically this often (0 disables; at least 1h).', default: 0 },
};

/** `keys/:name/config`: every check runs on a copy, so a refused change stores nothing. */
function configure(request: HandlerRequest, deps: KeyDependencies): LogicalResponse {
  const name = nameOf(request);
  const stored = readPolicy(request.storage, name);
  if (!stored) throw badRequest(`no existing key named ${name} could be found`);
  const policy: KeyPolicy = structuredClone(stored);
  const { fields } = request;
  const warnings: string[] = [];
  if (fields.has('min_decryption_version')) {
    let wanted = fields.get<number>('min_decryption_version');
    if (wanted < 0) throw badRequest('min decryption version cannot be negative');
    if (wanted === 0) {
      wanted = 1;
      warnings.push('since Vault 0.3, transit key numbering starts at 1; forcing minimum to 1');
    }
    if (wanted !== policy.min_decryption_version) {
      if (wanted > policy.latest_version) {
        throw badRequest(`cannot set min decryption version of ${wanted}, latest key version is ${policy.latest_version}`);
      }
      policy.min_decryption_version = wanted;
    }
  }
  if (fields.has('min_encryption_version')) {
    const wanted = fields.get<number>('min_encryption_version');
    if (wanted < 0) throw badRequest('min encryption version cannot be negative');
    if (wanted !== policy.min_encryption_version) {
      if (wanted > policy.latest_version) {
        throw badRequest(`cannot set min encryption version of ${wanted}, latest key version is ${policy.latest_version}`);
      }
      policy.min_encryption_version = wanted;
    }
  }
  if (policy.min_encryption_version > 0 && policy.min_encryption_version < policy.min_decryption_version) {
    throw badRequest(
      `cannot set min encryption/decryption values; min encryption version of ${policy.min_encryption_version} ` +
        `must be greater than or equal to min decryption version of ${policy.min_decryption_version}`,
    );
  }
  if (fields.has('deletion_allowed')) policy.deletion_allowed = fields.get<boolean>('deletion_allowed');
  // Exportability and plaintext backup, once allowed, stay allowed.
  if (fields.get<boolean>('exportable')) policy.exportable = true;
  if (fields.get<boolean>('allow_plaintext_backup')) policy.allow_plaintext_backup = true;
  if (fields.has('auto_rotate_period')) {
    const period = fields.get<number>('auto_rotate_period');
    if (period !== 0 && period < HOUR_SECONDS) throw badRequest('auto rotate period must be 0 to disable or at least an hour');
    policy.auto_rotate_period = period;
  }
  if (JSON.stringify(policy) !== JSON.stringify(stored)) {
    if (policy.min_available_version > policy.min_encryption_version) {
      throw badRequest('min encryption version should not be less than min available version');
    }
    if (policy.min_available_version > policy.min_decryption_version) {
      throw badRequest('min decryption version should not be less then min available version');
    }
    writePolicy(request.storage, policy);
    deps.changed();
  }
  return { data: keyView(policy), ...(warnings.length ? { warnings } : {}) };
}

/** Adds a version to the stored key (generated first, so a slow RSA key holds no transaction). */
export async function rotate(
  request: Pick<HandlerRequest, 'storage'>,
  name: string,
  deps: KeyDependencies,
): Promise<KeyPolicy | undefined> {
  const before = readPolicy(request.storage, name);
  if (!before) return undefined;
  const entry = await newVersion(before.type, before.key_size, deps.clock.now(), before.convergent_encryption);
  const policy = readPolicy(request.storage, name);
  if (!policy) return undefined;
  policy.latest_version += 1;
  policy.keys[String(policy.latest_version)] = entry;
  writePolicy(request.storage, policy);
  deps.changed();
  return policy;
}

function trim(request: HandlerRequest): LogicalResponse {
  const policy = readPolicy(request.storage, nameOf(request));
  if (!policy) throw badRequest('invalid key name');
  if (!request.fields.has('min_available_version')) throw badRequest('missing min_available_version');
  const wanted = request.fields.get<number>('min_available_version');
  if (wanted < policy.min_available_version) throw badRequest('minimum available version cannot be decremented');
  if (policy.min_encryption_version === 0) {
    throw badRequest('minimum available version cannot be set when minimum encryption version is not set');
  }
  if (wanted > policy.min_encryption_version) {
    throw badRequest('cannot set minimum available version to be greater than minimum encryption version');
  }
  if (wanted > policy.min_decryption_version) {
    throw badRequest('cannot set minimum available version to be greater than minimum decryption version');
  }
  if (wanted < 0) throw badRequest('cannot set minimum available version to a negative value');
  if (wanted === 0) throw badRequest('minimum available version should be positive');
  for (const version of Object.keys(policy.keys)) if (Number(version) < wanted) delete policy.keys[version];
  policy.min_available_version = wanted;
  writePolicy(request.storage, policy);
  return { data: keyView(policy) };
}

export function lifecyclePaths(deps: KeyDependencies): PathSpec[] {
  return [
    {
      pattern: 'keys/:name/config',
      summary: "Configure a key's version bounds, deletion, export, backup and automatic rotation.",
      fields: CONFIG_FIELDS,
      operations: { update: (request) => configure(request, deps) },
    },
    {
      pattern: 'keys/:name/rotate',
      summary: 'Add a new version of the key; new encryptions use it.',
      operations: {
        update: async (request) => {
          const policy = await rotate(request, nameOf(request), deps);
          if (!policy) throw badRequest('key not found');
          return { data: keyView(policy) };
        },
      },
    },
    {
      pattern: 'keys/:name/trim',
      summary: 'Delete the versions below min_available_version.',
      fields: { min_available_version: { type: 'int', description: 'The oldest version to keep.', default: 0 } },
      operations: { update: trim },
    },
  ];
}
