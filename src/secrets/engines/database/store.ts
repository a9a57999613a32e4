import type { MountStorage } from '../../storage/mount-storage.js';

/** A connection as kept in mount storage (`config/<name>`); the root password sits in `connection_details`. */
export interface ConnectionConfig {
  plugin_name: string;
  connection_details: Record<string, unknown>;
  allowed_roles: string[];
  root_rotation_statements: string[];
  password_policy: string;
  verify_connection: boolean;
}

/** A dynamic role (`role/<name>`). TTLs in seconds. */
export interface RoleEntry {
  db_name: string;
  creation_statements: string[];
  revocation_statements: string[];
  rollback_statements: string[];
  renew_statements: string[];
  default_ttl: number;
  max_ttl: number;
  credential_type: string;
  credential_config: Record<string, string>;
}

/** A static role (`static-role/<name>`) with its current password and rotation state (epoch ms). */
export interface StaticRoleEntry {
  db_name: string;
  username: string;
  rotation_period: number;
  rotation_statements: string[];
  credential_type: string;
  credential_config: Record<string, string>;
  password: string;
  last_rotation: number;
  /** Set after a failed rotation: when the next attempt is due. */
  retry_at?: number;
}

export const keys = {
  connection: (name: string) => `config/${name}`,
  role: (name: string) => `role/${name}`,
  staticRole: (name: string) => `static-role/${name}`,
};

export const readConnection = (storage: MountStorage, name: string) => storage.get<ConnectionConfig>(keys.connection(name));
export const readRole = (storage: MountStorage, name: string) => storage.get<RoleEntry>(keys.role(name));
export const readStaticRole = (storage: MountStorage, name: string) => storage.get<StaticRoleEntry>(keys.staticRole(name));

/** The entry names under `prefix` (folders left out); the paths answer 404 when there are none. */
export function listing(storage: MountStorage, prefix: string): string[] {
  return storage.list(prefix).filter((key) => !key.endsWith('/'));
}
