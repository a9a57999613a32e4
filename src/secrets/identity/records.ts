/**
 * The identity store's records as kept in its storage (`identity/` is a built-in mount, so they
 * live in mount storage under `builtin-identity`, one entry per record). Times are RFC 3339 text
 * from the server's clock, as the real service reports them.
 */

export type StringMap = Record<string, string>;

export interface EntityRecord {
  id: string;
  name: string;
  metadata: StringMap | null;
  policies: string[];
  disabled: boolean;
  /** Entities merged into this one (their ids stay findable by lookups of merged ids). */
  mergedEntityIds: string[];
  creationTime: string;
  lastUpdateTime: string;
}

export interface EntityAliasRecord {
  id: string;
  /** The entity's id. */
  canonicalId: string;
  mountAccessor: string;
  name: string;
  /** What the auth method reported at the last login (JWT claim mappings, the approle's role name…). */
  metadata: StringMap | null;
  customMetadata: StringMap | null;
  local: boolean;
  mergedFromCanonicalIds: string[];
  creationTime: string;
  lastUpdateTime: string;
}

export type GroupType = 'internal' | 'external';

export interface GroupRecord {
  id: string;
  name: string;
  type: GroupType;
  metadata: StringMap | null;
  policies: string[];
  memberEntityIds: string[];
  memberGroupIds: string[];
  creationTime: string;
  lastUpdateTime: string;
  modifyIndex: number;
}

/** An external group's one alias: the group's name at an auth method (a JWT `groups_claim` value). */
export interface GroupAliasRecord {
  id: string;
  /** The group's id. */
  canonicalId: string;
  mountAccessor: string;
  name: string;
  creationTime: string;
  lastUpdateTime: string;
}

/** Storage key prefixes, one per kind of record. */
export const KEYS = {
  entity: 'entity/',
  alias: 'entity-alias/',
  group: 'group/',
  groupAlias: 'group-alias/',
} as const;

/** Where an alias's mount is: the auth method (or engine) its accessor names. */
export interface MountOfAccessor {
  accessor: string;
  path: string;
  type: string;
  local: boolean;
}
