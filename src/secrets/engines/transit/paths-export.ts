import { createPrivateKey } from 'node:crypto';
import { badRequest, notFound } from '../../../core/errors.js';
import { rethrowAsUpstream500, upstream500 } from '../../framework/errors.js';
import type { HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { decodeBackup, encodeBackup } from './backup-format.js';
import { KEY_TYPES, supportsEncryption, supportsSigning } from './key-types.js';
import { nameOf, type KeyDependencies } from './paths-keys.js';
import { liveVersions, readPolicy, writePolicy, type KeyPolicy, type KeyVersion } from './policy.js';

const EXPORT_TYPES = new Set(['encryption-key', 'signing-key', 'hmac-key', 'public-key']);

/** One version's material in the real export formats (raw base64, PKCS #1 / SEC 1 / SPKI PEM). */
function exported(policy: KeyPolicy, entry: KeyVersion, exportType: string): string {
  const family = KEY_TYPES[policy.type].family;
  if (exportType === 'hmac-key') return family === 'hmac' ? (entry.key ?? '') : entry.hmac_key;
  if (exportType === 'public-key') return family === 'ed25519' ? (entry.public_key ?? '') : (entry.public_key ?? '').trim();
  if (family === 'aead' || family === 'ed25519') return entry.key ?? '';
  const key = createPrivateKey(entry.private_key ?? '');
  if (family === 'rsa') return key.export({ type: 'pkcs1', format: 'pem' }).toString();
  return key.export({ type: 'sec1', format: 'pem' }).toString().trim();
}

function exportPath(request: HandlerRequest): LogicalResponse {
  const exportType = request.params['type'] ?? '';
  if (!EXPORT_TYPES.has(exportType)) throw badRequest(`invalid export type: ${exportType}`);
  const policy = readPolicy(request.storage, nameOf(request));
  if (!policy) throw notFound();
  if (!policy.exportable && exportType !== 'public-key') throw badRequest('private key material is not exportable');
  if (exportType === 'encryption-key' && !supportsEncryption(policy.type)) throw badRequest('encryption not supported for the key');
  if (exportType === 'signing-key' && !supportsSigning(policy.type)) throw badRequest('signing not supported for the key');
  if (exportType === 'public-key' && !supportsSigning(policy.type)) {
    throw badRequest(`unknown key type ${policy.type} for export type ${exportType}`);
  }
  const keys: Record<string, string> = {};
  const versionText = request.params['version'];
  if (versionText === undefined) {
    for (const [version, entry] of liveVersions(policy)) keys[version] = exported(policy, entry, exportType);
  } else {
    const digits = versionText === 'latest' ? String(policy.latest_version) : versionText.replace(/^v/, '');
    if (!/^[+-]?\d+$/.test(digits)) throw badRequest('invalid key version');
    const version = Number(digits);
    if (version < policy.min_decryption_version) throw badRequest('version for export is below minimum decryption version');
    const entry = policy.keys[String(version)];
    if (!entry) throw badRequest('version does not exist or cannot be found');
    keys[String(version)] = exported(policy, entry, exportType);
  }
  return { data: { name: policy.name, type: policy.type, keys } };
}

/** A plaintext backup in the real engine's layout (see backup-format.ts). */
function backupPath(request: HandlerRequest, deps: KeyDependencies): LogicalResponse {
  const name = nameOf(request);
  const policy = readPolicy(request.storage, name);
  if (!policy) throw upstream500(badRequest(`key "${name}" not found`));
  if (!policy.exportable) throw upstream500(badRequest('exporting is disallowed on the policy'));
  if (!policy.allow_plaintext_backup) throw upstream500(badRequest('plaintext backup is disallowed on the policy'));
  policy.backup_info = { time: deps.clock.now().toISOString(), version: policy.latest_version };
  writePolicy(request.storage, policy);
  return { data: { backup: encodeBackup(policy) } };
}

function restorePath(request: HandlerRequest, deps: KeyDependencies): LogicalResponse | undefined {
  const backup = request.fields.get<string>('backup');
  if (backup === '') throw badRequest("'backup' must be supplied");
  let policy: KeyPolicy;
  try {
    policy = decodeBackup(backup);
  } catch (error) {
    // The real engine returns restore failures as Go errors: 500s in the `upstream` dialect.
    rethrowAsUpstream500(error);
  }
  const name = request.params['name'] ?? policy.name;
  if (readPolicy(request.storage, name) && !request.fields.get<boolean>('force'))
    throw upstream500(badRequest(`key "${name}" already exists`));
  writePolicy(request.storage, {
    ...policy,
    name,
    restore_info: { time: deps.clock.now().toISOString(), version: policy.latest_version },
  });
  deps.changed();
  return undefined;
}

const RESTORE_FIELDS = {
  backup: { type: 'string' as const, description: 'The backup from backup/:name.', default: '' },
  force: { type: 'bool' as const, description: 'Overwrite a key of the same name.', default: false },
};

export function exportPaths(deps: KeyDependencies): PathSpec[] {
  const exportSpec = { summary: 'Export key material of an exportable key.', operations: { read: exportPath } };
  return [
    { pattern: 'export/:type/:name', ...exportSpec },
    { pattern: 'export/:type/:name/:version', ...exportSpec },
    { pattern: 'backup/:name', summary: 'A plaintext backup of the key.', operations: { read: (request) => backupPath(request, deps) } },
    {
      pattern: 'restore',
      summary: 'Restore a key from a backup.',
      fields: RESTORE_FIELDS,
      operations: { update: (request) => restorePath(request, deps) },
    },
    {
      pattern: 'restore/:name',
      summary: 'Restore a key from a backup under a new name.',
      fields: RESTORE_FIELDS,
      operations: { update: (request) => restorePath(request, deps) },
    },
  ];
}
