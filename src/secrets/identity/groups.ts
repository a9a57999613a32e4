import { badRequest } from '../../core/errors.js';
import { identityPolicyList } from './entities.js';
import type { IdentityStore } from './identity-store.js';
import type { GroupAliasRecord, GroupRecord, GroupType, StringMap } from './records.js';

export interface GroupInput {
  id?: string;
  name?: string;
  type?: string;
  metadata?: StringMap;
  policies?: string[];
  memberEntityIds?: string[];
  memberGroupIds?: string[];
}

function groupType(raw: string | undefined, current: GroupRecord | undefined): GroupType {
  const type = (raw ?? '').toLowerCase() || current?.type || 'internal';
  if (type !== 'internal' && type !== 'external') throw badRequest(`invalid group type ${JSON.stringify(raw)}`);
  if (current && type !== current.type) throw badRequest('group type cannot be changed');
  return type;
}

/**
 * Creates or updates a group (`current` is the group the path names, if it exists). Member
 * entities must exist and are not set by hand on external groups; member groups must exist and
 * must not make a loop. Answers the group and whether it is new.
 */
export function upsertGroup(
  identity: IdentityStore,
  current: GroupRecord | undefined,
  input: GroupInput,
): { group: GroupRecord; created: boolean } {
  const state = identity.state();
  let target = current;
  if (input.name) {
    const named = state.groupNamed(input.name);
    if (named && !target) target = named;
    else if (named && target && named.id !== target.id) throw badRequest('group name is already in use');
  }
  const type = groupType(input.type, target);
  const id = target?.id ?? input.id ?? identity.newId();
  if (input.memberEntityIds !== undefined && type === 'external' && input.memberEntityIds.length > 0) {
    throw badRequest("member entities can't be set manually for external groups");
  }
  for (const member of input.memberEntityIds ?? [])
    if (!state.entity(member)) throw badRequest(`invalid entity ID ${JSON.stringify(member)}`);
  const memberGroupIds = input.memberGroupIds === undefined ? undefined : [...new Set(input.memberGroupIds)];
  for (const member of memberGroupIds ?? []) {
    if (member === id) throw badRequest(`member group ID ${JSON.stringify(member)} is same as the ID of the group`);
    if (!state.group(member)) throw badRequest(`invalid member group ID ${JSON.stringify(member)}`);
    if (target && state.reaches(member, target.id))
      throw badRequest(`cyclic relationship detected for member group ID ${JSON.stringify(member)}`);
  }
  const policies = input.policies === undefined ? undefined : identityPolicyList(input.policies);
  const now = identity.now();
  const group: GroupRecord = {
    id,
    name: input.name || target?.name || `group_${id}`,
    type,
    metadata: input.metadata === undefined ? (target?.metadata ?? null) : Object.keys(input.metadata).length > 0 ? input.metadata : null,
    policies: policies ?? target?.policies ?? [],
    memberEntityIds:
      type === 'external' ? (target?.memberEntityIds ?? []) : [...new Set(input.memberEntityIds ?? target?.memberEntityIds ?? [])],
    memberGroupIds: memberGroupIds ?? target?.memberGroupIds ?? [],
    creationTime: target?.creationTime ?? now,
    lastUpdateTime: now,
    modifyIndex: (target?.modifyIndex ?? 0) + 1,
  };
  identity.write((writer) => writer.putGroup(group));
  return { group, created: target === undefined };
}

/** Deletes a group with its alias, and takes it out of the groups that list it as a member. */
export function deleteGroup(identity: IdentityStore, group: GroupRecord | undefined): void {
  if (!group) return;
  const state = identity.state();
  const now = identity.now();
  identity.write((writer) => {
    for (const parent of state.parentsOf(group.id)) {
      writer.putGroup({
        ...parent,
        memberGroupIds: parent.memberGroupIds.filter((member) => member !== group.id),
        lastUpdateTime: now,
        modifyIndex: parent.modifyIndex + 1,
      });
    }
    const alias = state.groupAliasOf(group.id);
    if (alias) writer.deleteGroupAlias(alias.id);
    writer.deleteGroup(group.id);
  });
}

export interface GroupAliasInput {
  id: string;
  name: string;
  mountAccessor: string;
  canonicalId: string;
}

/**
 * `identity/group-alias` and `…/id/:id`: an external group's one alias. Without a `canonical_id`
 * a new external group is made for it. Answers `{id, canonical_id}`.
 */
export function writeGroupAlias(identity: IdentityStore, input: GroupAliasInput): { id: string; canonical_id: string } {
  const state = identity.state();
  const current = input.id === '' ? undefined : state.groupAliases.get(input.id);
  if (input.id !== '' && !current) throw badRequest('invalid group alias ID provided');
  const name = input.name || current?.name || '';
  const mountAccessor = input.mountAccessor || current?.mountAccessor || '';
  if (name === '') throw badRequest('missing alias name');
  if (mountAccessor === '') throw badRequest('missing mount_accessor');
  if (!identity.mountOfAccessor(mountAccessor)) throw badRequest(`invalid mount accessor ${JSON.stringify(mountAccessor)}`);
  const clash = state.groupAliasByName(mountAccessor, name);
  if (clash && clash.id !== current?.id) throw badRequest('combination of mount and group alias name is already in use');

  const canonicalId = input.canonicalId || current?.canonicalId || '';
  let group = canonicalId === '' ? undefined : state.group(canonicalId);
  if (canonicalId !== '' && !group) throw badRequest('invalid group ID given in canonical_id');
  if (group && group.type !== 'external') throw badRequest("alias can't be set on an internal group");
  const held = group && state.groupAliasOf(group.id);
  if (held && held.id !== current?.id) throw badRequest('group already has an alias');

  const now = identity.now();
  if (!group) {
    const id = identity.newId();
    group = {
      id,
      name: `group_${id}`,
      type: 'external',
      metadata: null,
      policies: [],
      memberEntityIds: [],
      memberGroupIds: [],
      creationTime: now,
      lastUpdateTime: now,
      modifyIndex: 1,
    };
  }
  const alias: GroupAliasRecord = {
    id: current?.id ?? identity.newId(),
    canonicalId: group.id,
    mountAccessor,
    name,
    creationTime: current?.creationTime ?? now,
    lastUpdateTime: now,
  };
  const owner = group;
  identity.write((writer) => {
    if (!state.group(owner.id)) writer.putGroup(owner);
    writer.putGroupAlias(alias);
  });
  return { id: alias.id, canonical_id: owner.id };
}
