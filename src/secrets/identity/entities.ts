import { badRequest } from '../../core/errors.js';
import { multierrorText } from '../framework/errors.js';
import { generatedEntityName, type IdentityStore } from './identity-store.js';
import type { EntityAliasRecord, EntityRecord, StringMap } from './records.js';

/** What a write to `identity/entity` (or `…/id/:id`, `…/name/:name`) gives; absent fields keep their value. */
export interface EntityInput {
  id?: string;
  name?: string;
  metadata?: StringMap;
  policies?: string[];
  disabled?: boolean;
}

/** Policies as the real service keeps an entity's or group's: trimmed, no empties, no duplicates; never `root`. */
export function identityPolicyList(policies: string[]): string[] {
  const cleaned = [...new Set(policies.map((policy) => policy.trim()).filter((policy) => policy !== ''))];
  if (cleaned.some((policy) => policy.toLowerCase() === 'root')) throw badRequest('policies cannot contain root');
  return cleaned;
}

/**
 * Creates or updates an entity. `current` is the entity the path names (by id or name), if it
 * exists; a name already used by another entity is refused. Answers the entity and whether it is new.
 */
export function upsertEntity(
  identity: IdentityStore,
  current: EntityRecord | undefined,
  input: EntityInput,
): { entity: EntityRecord; created: boolean } {
  const state = identity.state();
  let target = current;
  if (input.name !== undefined && input.name !== '') {
    const named = state.entityNamed(input.name);
    if (named && !target) target = named;
    else if (named && target && named.id !== target.id) throw badRequest('entity name is already in use');
  }
  const policies = input.policies === undefined ? undefined : identityPolicyList(input.policies);
  const now = identity.now();
  const id = target?.id ?? input.id ?? identity.newId();
  const entity: EntityRecord = {
    id,
    name: input.name || target?.name || generatedEntityName(id),
    metadata: input.metadata === undefined ? (target?.metadata ?? null) : Object.keys(input.metadata).length > 0 ? input.metadata : null,
    policies: policies ?? target?.policies ?? [],
    disabled: input.disabled ?? target?.disabled ?? false,
    mergedEntityIds: target?.mergedEntityIds ?? [],
    creationTime: target?.creationTime ?? now,
    lastUpdateTime: now,
  };
  identity.write((writer) => writer.putEntity(entity));
  return { entity, created: target === undefined };
}

/** Deletes entities with their aliases, and takes them out of every group. */
export function deleteEntities(identity: IdentityStore, ids: string[]): void {
  const state = identity.state();
  const doomed = new Set(ids.filter((id) => state.entity(id)));
  if (doomed.size === 0) return;
  const now = identity.now();
  identity.write((writer) => {
    for (const id of doomed) {
      for (const alias of state.aliasesOf(id)) writer.deleteAlias(alias.id);
      writer.deleteEntity(id);
    }
    for (const group of state.groups.values()) {
      const members = group.memberEntityIds.filter((member) => !doomed.has(member));
      if (members.length !== group.memberEntityIds.length) {
        writer.putGroup({ ...group, memberEntityIds: members, lastUpdateTime: now, modifyIndex: group.modifyIndex + 1 });
      }
    }
  });
}

export interface MergeInput {
  toEntityId: string;
  fromEntityIds: string[];
  conflictingAliasIdsToKeep: string[];
}

/** `identity/entity/merge`: the from-entities' aliases, policies and group memberships move to the to-entity. */
export function mergeEntities(identity: IdentityStore, input: MergeInput): void {
  if (input.toEntityId === '') throw badRequest('missing entity id to merge to');
  if (input.fromEntityIds.length === 0) throw badRequest('missing entity ids to merge from');
  const state = identity.state();
  const to = state.entity(input.toEntityId);
  if (!to) throw badRequest('entity id to merge to is invalid');
  const keep = input.conflictingAliasIdsToKeep;
  if (input.fromEntityIds.length > 1 && keep.length > 1) {
    throw badRequest('aliases conflicts cannot be resolved with multiple from entity ids - merge one entity at a time');
  }
  const fromIds = [...new Set(input.fromEntityIds)];
  const clashes: string[] = [];
  const seenAccessors = new Map<string, string>();
  for (const fromId of fromIds) {
    if (fromId === to.id) throw badRequest('to_entity_id should not be present in from_entity_ids');
    if (!state.entity(fromId)) throw badRequest('entity id to merge from is invalid');
    if (keep.length > 0) continue;
    for (const fromAlias of state.aliasesOf(fromId)) {
      const other = seenAccessors.get(fromAlias.mountAccessor);
      if (other !== undefined && other !== fromId) {
        throw badRequest(
          `mount accessor ${fromAlias.mountAccessor} found in multiple fromEntities, merge should be done with one fromEntity at a time`,
        );
      }
      seenAccessors.set(fromAlias.mountAccessor, fromId);
      for (const toAlias of state.aliasesOf(to.id)) {
        if (toAlias.mountAccessor !== fromAlias.mountAccessor) continue;
        clashes.push(
          `mountAccessor: ${toAlias.mountAccessor}, toEntity ID: ${to.id}, fromEntity ID: ${fromId}, ` +
            `conflicting toEntity alias ID: ${toAlias.id}, conflicting fromEntity alias ID: ${fromAlias.id}`,
        );
      }
    }
  }
  if (clashes.length > 0) {
    // The real service gathers every clash into one multierror before answering.
    const summary =
      'toEntity and at least one fromEntity have aliases with the same mount accessor, ' +
      'repeat the merge request specifying exactly one fromEntity, clashes: ';
    throw badRequest(multierrorText([summary, ...clashes]));
  }

  const now = identity.now();
  identity.write((writer) => {
    const toAliases = new Map(state.aliasesOf(to.id).map((alias) => [alias.mountAccessor, alias]));
    let policies = [...to.policies];
    const merged = [...to.mergedEntityIds];
    for (const fromId of fromIds) {
      const from = state.entity(fromId) as EntityRecord;
      for (const fromAlias of state.aliasesOf(fromId)) {
        const toAlias = toAliases.get(fromAlias.mountAccessor);
        if (toAlias) {
          if (keep.includes(toAlias.id)) {
            writer.deleteAlias(fromAlias.id);
            continue;
          }
          if (!keep.includes(fromAlias.id)) {
            throw badRequest(
              'conflicting mount accessors in following alias IDs and neither were present in ' +
                `conflicting_alias_ids_to_keep: ${fromAlias.id}, ${toAlias.id}`,
            );
          }
          writer.deleteAlias(toAlias.id);
        }
        const moved: EntityAliasRecord = {
          ...fromAlias,
          canonicalId: to.id,
          mergedFromCanonicalIds: [...fromAlias.mergedFromCanonicalIds, from.id],
          lastUpdateTime: now,
        };
        writer.putAlias(moved);
        toAliases.set(moved.mountAccessor, moved);
      }
      policies = [...new Set([...policies, ...from.policies])];
      merged.push(...from.mergedEntityIds, from.id);
      writer.deleteEntity(from.id);
    }
    for (const group of state.groups.values()) {
      if (!group.memberEntityIds.some((member) => fromIds.includes(member))) continue;
      const members = group.memberEntityIds.filter((member) => !fromIds.includes(member));
      if (!members.includes(to.id)) members.push(to.id);
      writer.putGroup({ ...group, memberEntityIds: members, lastUpdateTime: now, modifyIndex: group.modifyIndex + 1 });
    }
    writer.putEntity({ ...to, policies, mergedEntityIds: merged, lastUpdateTime: now });
  });
}

export interface AliasInput {
  id: string;
  name: string;
  mountAccessor: string;
  canonicalId: string;
  customMetadata?: StringMap;
}

const sameMap = (a: StringMap | null, b: StringMap | null) =>
  JSON.stringify(Object.entries(a ?? {}).sort()) === JSON.stringify(Object.entries(b ?? {}).sort());

/**
 * `identity/entity-alias` and `…/id/:id`: an id updates that alias; otherwise name and mount
 * accessor find one to update or make a new one (with a new entity when no `canonical_id` is given).
 * Answers `{id, canonical_id}`, or undefined when nothing changed (204).
 */
export function writeEntityAlias(identity: IdentityStore, input: AliasInput): { id: string; canonical_id: string } | undefined {
  const state = identity.state();
  if (input.id !== '') {
    const alias = state.aliases.get(input.id);
    if (!alias) throw badRequest('invalid alias ID provided');
    if (input.mountAccessor === '' && input.name === '' && input.canonicalId === '' && input.customMetadata === undefined) return undefined;
    return updateAlias(identity, alias, {
      ...input,
      name: input.name || alias.name,
      mountAccessor: input.mountAccessor || alias.mountAccessor,
    });
  }
  if (input.mountAccessor === '' || input.name === '') throw badRequest("'id' or 'mount_accessor' and 'name' must be provided");
  const mount = identity.mountOfAccessor(input.mountAccessor);
  if (!mount) throw badRequest(`invalid mount accessor ${JSON.stringify(input.mountAccessor)}`);
  const existing = state.aliasByName(input.mountAccessor, input.name);
  if (existing) return updateAlias(identity, existing, input);

  let entity: EntityRecord | undefined;
  if (input.canonicalId !== '') {
    entity = state.entity(input.canonicalId);
    if (!entity) throw badRequest('invalid canonical ID');
    if (state.aliasesOf(entity.id).some((alias) => alias.mountAccessor === input.mountAccessor)) {
      throw badRequest('Alias already exists for requested entity and mount accessor');
    }
  }
  const now = identity.now();
  const entityId = entity?.id ?? identity.newId();
  const alias: EntityAliasRecord = {
    id: identity.newId(),
    canonicalId: entityId,
    mountAccessor: input.mountAccessor,
    name: input.name,
    metadata: null,
    customMetadata: input.customMetadata && Object.keys(input.customMetadata).length > 0 ? input.customMetadata : null,
    local: mount.local,
    mergedFromCanonicalIds: [],
    creationTime: now,
    lastUpdateTime: now,
  };
  identity.write((writer) => {
    if (!entity) {
      writer.putEntity({
        id: entityId,
        name: generatedEntityName(entityId),
        metadata: null,
        policies: [],
        disabled: false,
        mergedEntityIds: [],
        creationTime: now,
        lastUpdateTime: now,
      });
    }
    writer.putAlias(alias);
  });
  return { id: alias.id, canonical_id: entityId };
}

function updateAlias(
  identity: IdentityStore,
  alias: EntityAliasRecord,
  input: AliasInput,
): { id: string; canonical_id: string } | undefined {
  const state = identity.state();
  const customMetadata = input.customMetadata ?? alias.customMetadata;
  const canonicalId = input.canonicalId || alias.canonicalId;
  if (
    input.name === alias.name &&
    input.mountAccessor === alias.mountAccessor &&
    canonicalId === alias.canonicalId &&
    sameMap(customMetadata, alias.customMetadata)
  ) {
    return undefined;
  }
  if (input.mountAccessor !== alias.mountAccessor && canonicalId === alias.canonicalId) {
    if (state.aliasesOf(alias.canonicalId).some((other) => other.mountAccessor === input.mountAccessor)) {
      throw badRequest("Alias cannot be updated as the entity already has an alias for the given 'mount_accessor' ");
    }
  }
  const mount = identity.mountOfAccessor(input.mountAccessor);
  if (!mount) throw badRequest(`invalid mount accessor ${JSON.stringify(input.mountAccessor)}`);
  const clash = state.aliasByName(input.mountAccessor, input.name);
  if (clash && clash.id !== alias.id) throw badRequest('alias with combination of mount accessor and name already exists');
  if (canonicalId !== alias.canonicalId) {
    if (mount.local) throw badRequest("local aliases can't be moved between entities");
    const target = state.entity(canonicalId);
    if (!target) throw badRequest("given 'canonical_id' is not associated with an entity");
    if (state.aliasesOf(target.id).some((other) => other.mountAccessor === input.mountAccessor)) {
      throw badRequest('Alias cannot be updated as the given entity already has an alias for this mount ');
    }
  }
  const updated: EntityAliasRecord = {
    ...alias,
    name: input.name,
    mountAccessor: input.mountAccessor,
    canonicalId,
    customMetadata: customMetadata && Object.keys(customMetadata).length > 0 ? customMetadata : null,
    lastUpdateTime: identity.now(),
  };
  identity.write((writer) => writer.putAlias(updated));
  return { id: updated.id, canonical_id: canonicalId };
}
