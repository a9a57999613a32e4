import { kmsLibraryMap } from '../../config.js';
import type { Runtime } from '../../runtime.js';
import type { MountTable } from '../mounts/mount-table.js';
import type { KeyTypeDefinition } from './definition.js';
import { cloudAKmsKeyType } from './cloud-a-kms.js';
import { cloudCKeyVaultKeyType } from './cloud-c-keyvault.js';
import { pkcs11KeyType } from './pkcs11.js';
import { ManagedKeys, type KeyType } from './service.js';

/** The managed key service with every backend type this server supports. */
export function managedKeyService(runtime: Runtime, mounts: MountTable, localBaseUrl: () => string): ManagedKeys {
  const types = new Map<KeyType, KeyTypeDefinition>([
    ['pkcs11', pkcs11KeyType()],
    ['cloud-a-kms', cloudAKmsKeyType()],
    ['cloud-c-keyvault', cloudCKeyVaultKeyType()],
  ]);
  const environment = { libraries: kmsLibraryMap(runtime.config.kmsLibraries), localBaseUrl, env: process.env };
  return new ManagedKeys(runtime.store.db, mounts, types, environment, runtime.config.dialect);
}
