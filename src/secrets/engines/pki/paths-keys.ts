import { createPublicKey } from 'node:crypto';
import { badRequest, notFound } from '../../../core/errors.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { caKeyFor, generationType, KEY_FIELDS, localKeyEntry, parsePrivateKey, writeKey } from './authority.js';
import { signerFor } from './ca.js';
import type { PkiEngine } from './engine.js';
import { exportPrivateKey, samePublicKey } from './keys.js';
import { checkName, pkiStore, type KeyEntry } from './storage.js';
import { colonSerial, keyIdentifier, pemBlocks, toPem } from './x509.js';

const KEY_REF: Record<string, FieldSpec> = { key_ref: { type: 'string', description: 'default, a key id or name' } };

/** A key as `key/:ref` reads it: the managed key's own type and names for a `kms` key. */
function keyData(engine: PkiEngine, request: HandlerRequest, key: KeyEntry): Record<string, unknown> {
  const data: Record<string, unknown> = { key_id: key.id, key_name: key.name, key_type: key.type };
  const signer = signerFor(engine, key, request.mount.uuid);
  if (key.managed_key) Object.assign(data, { managed_key_id: key.managed_key.id, managed_key_name: key.managed_key.name });
  data.subject_key_id = colonSerial(keyIdentifier(signer.publicKey));
  return data;
}

const listKeys = (request: HandlerRequest): LogicalResponse => {
  const keys = pkiStore(request).keys();
  if (keys.length === 0) throw notFound();
  return { data: { keys: keys.map((key) => key.id), key_info: Object.fromEntries(keys.map((key) => [key.id, { key_name: key.name }])) } };
};

/** Keys the mount holds: listed, read, renamed, deleted (not while an issuer uses them), generated, imported. */
export function keyPaths(engine: PkiEngine): PathSpec[] {
  const read = (request: HandlerRequest): LogicalResponse => ({
    data: keyData(engine, request, pkiStore(request).resolveKey(request.params.key_ref as string)),
  });

  const rename = (request: HandlerRequest): LogicalResponse => {
    const store = pkiStore(request);
    const key = store.resolveKey(request.params.key_ref as string);
    const wanted = request.fields.get<string>('key_name').trim();
    const name = wanted === key.name ? wanted : checkName('key', wanted, (candidate) => store.findKey(candidate) !== undefined);
    if (name !== key.name) store.putKey({ ...key, name });
    const response: LogicalResponse = { data: { key_id: key.id, key_name: name, key_type: key.type } };
    if (name === '') response.warnings = [`Name successfully deleted, you will now need to reference this key by it's Id: ${key.id}`];
    return response;
  };

  const remove = (request: HandlerRequest): LogicalResponse | undefined => {
    const store = pkiStore(request);
    const ref = request.params.key_ref as string;
    const key = store.findKey(ref);
    if (!key) return undefined;
    const user = store.issuers().find((issuer) => issuer.key_id === key.id);
    if (user) throw badRequest(`Failed to Delete Key.  Key in Use by Issuer: ${user.id}`);
    if (!store.deleteKey(key.id)) return undefined;
    return {
      data: null,
      warnings: [
        `Deleted key ${key.id} (via key_ref ${ref}); this was configured as the default key. ` +
          'Operations without an explicit key will not work until a new default is configured.',
      ],
    };
  };

  const generate = (request: HandlerRequest) =>
    engine.exclusive(request.mount.uuid, async (): Promise<LogicalResponse> => {
      const type = generationType(request, ['internal', 'exported', 'kms']);
      const key = await caKeyFor(engine, request, pkiStore(request), type);
      engine.commit(request.mount.uuid, (tx) => writeKey(tx, key.entry));
      const data: Record<string, unknown> = { key_id: key.entry.id, key_name: key.entry.name, key_type: key.entry.type };
      if (type === 'exported' && key.local) data.private_key = exportPrivateKey(key.local, 'pkcs8', 'pem');
      return { data };
    });

  const importKey = (request: HandlerRequest) =>
    engine.exclusive(request.mount.uuid, async (): Promise<LogicalResponse> => {
      const text = request.fields.get<string>('pem_bundle');
      const blocks = pemBlocks(text).filter((block) => /PRIVATE KEY$/.test(block.label));
      if (blocks.length !== 1) throw badRequest('only a single key can be present within the pem_bundle for importing');
      const block = blocks[0] as (typeof blocks)[number];
      const key = parsePrivateKey(toPem(block.der, block.label), 'the private key');
      const store = pkiStore(request);
      const name = checkName('key', request.fields.get<string>('key_name'), (candidate) => store.findKey(candidate) !== undefined);
      const existing = store
        .keys()
        .find((entry) => samePublicKey(signerFor(engine, entry, request.mount.uuid).publicKey, createPublicKey(key)));
      if (existing) {
        return {
          data: { key_id: existing.id, key_name: existing.name, key_type: existing.type },
          warnings: ['Key already imported, use key/ endpoint to update name.'],
        };
      }
      const entry = localKeyEntry(key, name);
      engine.commit(request.mount.uuid, (tx) => writeKey(tx, entry));
      return { data: { key_id: entry.id, key_name: entry.name, key_type: entry.type } };
    });

  return [
    { pattern: 'keys', summary: 'List keys.', operations: { list: listKeys } },
    {
      pattern: 'key/:key_ref',
      summary: 'Read, rename or delete a key.',
      fields: { ...KEY_REF, key_name: { type: 'string', default: '', description: 'the key name' } },
      operations: { read, update: rename, delete: remove },
    },
    {
      pattern: 'keys/generate/:type',
      summary: 'Generate a key: internal, exported or kms.',
      fields: { type: { type: 'string', description: 'internal, exported or kms' }, ...KEY_FIELDS },
      operations: { update: generate },
    },
    {
      pattern: 'keys/import',
      summary: 'Import a private key.',
      fields: {
        pem_bundle: { type: 'string', default: '', description: 'one PEM private key' },
        key_name: { type: 'string', default: '', description: 'a name for the key' },
      },
      operations: { update: importKey },
    },
  ];
}
