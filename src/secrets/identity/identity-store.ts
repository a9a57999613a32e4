import type { Clock } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import { uuid } from '../../core/ids.js';
import { storeGeneration } from '../../store/generation.js';
import type { Store } from '../../store/store.js';
import type { LoginAlias } from '../auth/login.js';
import type { MountTable } from '../mounts/mount-table.js';
import { MountStorage } from '../storage/mount-storage.js';
import {
  KEYS,
  type EntityAliasRecord,
  type EntityRecord,
  type GroupAliasRecord,
  type GroupRecord,
  type MountOfAccessor,
} from './records.js';
import { IdentityState } from './state.js';
import { identityTemplateLookup } from './template-values.js';
import type { TemplateLookup } from '../acl/template.js';

/** The built-in `identity/` mount's storage key (as `sys/mounts` lists it). */
export const IDENTITY_MOUNT_UUID = 'builtin-identity';

/** The record writes of one change, applied in one transaction. */
export interface IdentityWriter {
  putEntity(entity: EntityRecord): void;
  deleteEntity(id: string): void;
  putAlias(alias: EntityAliasRecord): void;
  deleteAlias(id: string): void;
  putGroup(group: GroupRecord): void;
  deleteGroup(id: string): void;
  putGroupAlias(alias: GroupAliasRecord): void;
  deleteGroupAlias(id: string): void;
}

/** The login a token records: who logged in and what the identity store gives it. */
export interface LinkedLogin {
  entityId: string;
  identityPolicies: string[];
}

/** An entity's name when none is given: `entity_` and eight hex digits, as the real service makes them. */
export const generatedEntityName = (id: string): string => `entity_${id.replace(/-/g, '').slice(0, 8)}`;

/**
 * The identity store: entities, their aliases at auth methods, groups and group aliases. Records
 * live in the built-in mount's storage; requests read an `IdentityState` built from them, kept
 * until this store writes or the whole store is replaced (reset, snapshot restore).
 */
export class IdentityStore {
  private cached: IdentityState | undefined;
  /** The store generation and write count `cached` was loaded at (its version, as numbers). */
  private cachedAt = { generation: -1, writes: -1 };
  private writes = 0;
  readonly storage: MountStorage;

  constructor(
    private readonly store: Store,
    readonly clock: Clock,
    private readonly mounts: MountTable,
    private readonly authMounts: MountTable,
  ) {
    this.storage = new MountStorage(store.db, IDENTITY_MOUNT_UUID);
  }

  /** The current records and indexes. */
  state(): IdentityState {
    const generation = storeGeneration(this.store.sqlite);
    // Compared as numbers: every secrets request with an entity's token asks, often more than once.
    if (this.cached === undefined || this.cachedAt.generation !== generation || this.cachedAt.writes !== this.writes) {
      this.cached = this.load(`${generation}.${this.writes}`);
      this.cachedAt = { generation, writes: this.writes };
    }
    return this.cached;
  }

  private load(version: string): IdentityState {
    const read = <T>(prefix: string) => this.storage.keys(prefix).map((key) => this.storage.get<T>(key) as T);
    return new IdentityState(version, {
      entities: read<EntityRecord>(KEYS.entity),
      aliases: read<EntityAliasRecord>(KEYS.alias),
      groups: read<GroupRecord>(KEYS.group),
      groupAliases: read<GroupAliasRecord>(KEYS.groupAlias),
    });
  }

  /** Applies a change in one transaction; the state is rebuilt on the next read, whatever happened. */
  write<T>(change: (writer: IdentityWriter) => T): T {
    try {
      return this.store.db.transaction((tx) => {
        const storage = new MountStorage(tx, IDENTITY_MOUNT_UUID);
        const put = (prefix: string) => (record: { id: string }) => storage.put(`${prefix}${record.id}`, record);
        const drop = (prefix: string) => (id: string) => storage.delete(`${prefix}${id}`);
        return change({
          putEntity: put(KEYS.entity),
          deleteEntity: drop(KEYS.entity),
          putAlias: put(KEYS.alias),
          deleteAlias: drop(KEYS.alias),
          putGroup: put(KEYS.group),
          deleteGroup: drop(KEYS.group),
          putGroupAlias: put(KEYS.groupAlias),
          deleteGroupAlias: drop(KEYS.groupAlias),
        });
      });
    } finally {
      this.writes += 1;
    }
  }

  now(): string {
    return this.clock.now().toISOString();
  }

  newId(): string {
    return uuid();
  }

  /** The auth method (or secrets engine) an accessor names, or undefined for an unknown one. */
  mountOfAccessor(accessor: string): MountOfAccessor | undefined {
    const auth = this.authMounts.all().find((mount) => mount.accessor === accessor);
    if (auth) return { accessor, path: `auth/${auth.path}`, type: auth.type, local: auth.local };
    const engine = this.mounts.all().find((mount) => mount.accessor === accessor);
    return engine && { accessor, path: engine.path, type: engine.type, local: engine.local };
  }

  /** The accessor of the built-in token auth method (`auth/token/`), which `entity_alias` tokens are linked on. */
  tokenMountAccessor(): string {
    return this.authMounts.get('token/')?.accessor ?? 'token_builtin';
  }

  /**
   * Links a login to its entity as the real service does: the alias (mount accessor, name) is
   * found or made, with a new entity on first sight; changed alias metadata is updated; a JWT
   * login's group names join the external groups with a matching alias on that mount (and leave
   * the others there). A disabled entity may not log in.
   */
  linkLogin(mountAccessor: string, login: LoginAlias & { groups?: string[] }): LinkedLogin {
    let state = this.state();
    const existing = state.aliasByName(mountAccessor, login.name);
    const entity = existing && state.entity(existing.canonicalId);
    if (entity?.disabled) throw new ApiError(403, 'permission denied', { messages: ['permission denied'] });
    const metadata = Object.keys(login.metadata).length > 0 ? login.metadata : null;
    const sameMetadata = JSON.stringify(existing?.metadata ?? null) === JSON.stringify(metadata);
    const groupChanges = login.groups ? this.externalGroupChanges(state, mountAccessor, entity?.id, login.groups) : [];
    if (!existing || !entity || !sameMetadata || groupChanges.length > 0) {
      const now = this.now();
      const entityId = this.write((writer) => {
        let target = entity;
        if (!target) {
          const id = this.newId();
          target = {
            id,
            name: generatedEntityName(id),
            metadata: null,
            policies: [],
            disabled: false,
            mergedEntityIds: [],
            creationTime: now,
            lastUpdateTime: now,
          };
          writer.putEntity(target);
        }
        if (!existing || existing.canonicalId !== target.id || !sameMetadata) {
          const local = this.mountOfAccessor(mountAccessor)?.local ?? false;
          writer.putAlias({
            id: existing?.id ?? this.newId(),
            canonicalId: target.id,
            mountAccessor,
            name: login.name,
            metadata,
            customMetadata: existing?.customMetadata ?? null,
            local,
            mergedFromCanonicalIds: existing?.mergedFromCanonicalIds ?? [],
            creationTime: existing?.creationTime ?? now,
            lastUpdateTime: now,
          });
        }
        const id = target.id;
        const changes = login.groups ? this.externalGroupChanges(this.state(), mountAccessor, id, login.groups) : [];
        for (const group of changes) writer.putGroup({ ...group, lastUpdateTime: now, modifyIndex: group.modifyIndex + 1 });
        return id;
      });
      state = this.state();
      return { entityId, identityPolicies: state.groupsOf(entityId).identityPolicies };
    }
    return { entityId: entity.id, identityPolicies: state.groupsOf(entity.id).identityPolicies };
  }

  /** External groups on this mount whose membership of the entity changes with the login's group names. */
  private externalGroupChanges(state: IdentityState, mountAccessor: string, entityId: string | undefined, names: string[]): GroupRecord[] {
    if (!entityId) return [];
    const wanted = new Set(names.map((name) => state.groupAliasByName(mountAccessor, name)?.canonicalId).filter((id) => id !== undefined));
    const changed: GroupRecord[] = [];
    for (const group of state.groups.values()) {
      if (group.type !== 'external' || state.groupAliasOf(group.id)?.mountAccessor !== mountAccessor) continue;
      const member = group.memberEntityIds.includes(entityId);
      if (wanted.has(group.id) && !member) changed.push({ ...group, memberEntityIds: [...group.memberEntityIds, entityId] });
      if (!wanted.has(group.id) && member)
        changed.push({ ...group, memberEntityIds: group.memberEntityIds.filter((id) => id !== entityId) });
    }
    return changed;
  }

  version(): string {
    return this.state().version;
  }

  isDisabled(entityId: string): boolean {
    return this.state().entityOrMerged(entityId)?.disabled ?? false;
  }

  templateLookup(entityId: string): TemplateLookup {
    return identityTemplateLookup(this.state(), entityId);
  }

  /** The policies a token of this entity holds through the identity store (the entity's and its groups'). */
  identityPolicies(entityId: string | null | undefined): string[] {
    if (!entityId) return [];
    const state = this.state();
    const entity = state.entityOrMerged(entityId);
    return entity ? state.groupsOf(entity.id).identityPolicies : [];
  }
}
