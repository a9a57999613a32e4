import type { IdentityStore } from './identity-store.js';
import type { EntityAliasRecord, EntityRecord, GroupAliasRecord, GroupRecord } from './records.js';

/** Records as the real service answers them (snake_case, the root namespace, mount path and type of each alias). */

export function aliasWire(identity: IdentityStore, alias: EntityAliasRecord): Record<string, unknown> {
  const mount = identity.mountOfAccessor(alias.mountAccessor);
  return {
    id: alias.id,
    canonical_id: alias.canonicalId,
    mount_accessor: alias.mountAccessor,
    mount_path: mount?.path ?? '',
    mount_type: mount?.type ?? '',
    name: alias.name,
    metadata: alias.metadata,
    custom_metadata: alias.customMetadata ?? {},
    local: alias.local,
    merged_from_canonical_ids: alias.mergedFromCanonicalIds.length > 0 ? alias.mergedFromCanonicalIds : null,
    creation_time: alias.creationTime,
    last_update_time: alias.lastUpdateTime,
    namespace_id: 'root',
  };
}

export function entityWire(identity: IdentityStore, entity: EntityRecord): Record<string, unknown> {
  const state = identity.state();
  const groups = state.groupsOf(entity.id);
  return {
    id: entity.id,
    name: entity.name,
    metadata: entity.metadata,
    policies: entity.policies,
    disabled: entity.disabled,
    namespace_id: 'root',
    merged_entity_ids: entity.mergedEntityIds.length > 0 ? entity.mergedEntityIds : null,
    creation_time: entity.creationTime,
    last_update_time: entity.lastUpdateTime,
    aliases: state.aliasesOf(entity.id).map((alias) => aliasWire(identity, alias)),
    direct_group_ids: groups.direct,
    inherited_group_ids: groups.inherited,
    group_ids: [...groups.direct, ...groups.inherited],
    mfa_secrets: {},
  };
}

export function groupAliasWire(identity: IdentityStore, alias: GroupAliasRecord): Record<string, unknown> {
  const mount = identity.mountOfAccessor(alias.mountAccessor);
  return {
    id: alias.id,
    canonical_id: alias.canonicalId,
    mount_accessor: alias.mountAccessor,
    mount_path: mount?.path ?? '',
    mount_type: mount?.type ?? '',
    name: alias.name,
    metadata: null,
    merged_from_canonical_ids: null,
    creation_time: alias.creationTime,
    last_update_time: alias.lastUpdateTime,
    namespace_id: 'root',
  };
}

export function groupWire(identity: IdentityStore, group: GroupRecord): Record<string, unknown> {
  const state = identity.state();
  const alias = state.groupAliasOf(group.id);
  return {
    id: group.id,
    name: group.name,
    type: group.type,
    metadata: group.metadata,
    policies: group.policies,
    member_entity_ids: group.memberEntityIds,
    member_group_ids: group.memberGroupIds,
    parent_group_ids: state.parentsOf(group.id).map((parent) => parent.id),
    creation_time: group.creationTime,
    last_update_time: group.lastUpdateTime,
    modify_index: group.modifyIndex,
    namespace_id: 'root',
    alias: alias ? groupAliasWire(identity, alias) : {},
  };
}
