import type { EntityAliasRecord, EntityRecord, GroupAliasRecord, GroupRecord } from './records.js';

/** Names are matched without regard to case, as the real service's indexes do. */
export const nameKey = (name: string): string => name.toLowerCase();
const factorKey = (mountAccessor: string, name: string): string => `${mountAccessor}\n${name.toLowerCase()}`;

/** What an entity's groups give it: direct and inherited group ids, and every policy they carry. */
export interface EntityGroups {
  direct: string[];
  inherited: string[];
  /** The entity's own policies and those of all its groups, sorted, without duplicates. */
  identityPolicies: string[];
}

/**
 * Every identity record with the indexes requests look things up by. Built from storage once per
 * change of the store (a write here, a reset or a restore) and never changed in place, so what an
 * entity's groups and policies are is computed once per entity and version, not per request.
 */
export class IdentityState {
  readonly entities = new Map<string, EntityRecord>();
  readonly aliases = new Map<string, EntityAliasRecord>();
  readonly groups = new Map<string, GroupRecord>();
  readonly groupAliases = new Map<string, GroupAliasRecord>();
  private readonly entityByName = new Map<string, EntityRecord>();
  private readonly entityByMergedId = new Map<string, EntityRecord>();
  private readonly aliasByFactors = new Map<string, EntityAliasRecord>();
  private readonly aliasesByEntity = new Map<string, EntityAliasRecord[]>();
  private readonly groupByName = new Map<string, GroupRecord>();
  private readonly groupAliasByFactors = new Map<string, GroupAliasRecord>();
  private readonly groupAliasByGroup = new Map<string, GroupAliasRecord>();
  private readonly groupsByMember = new Map<string, GroupRecord[]>();
  private readonly parentsOfGroup = new Map<string, GroupRecord[]>();
  private readonly entityGroups = new Map<string, EntityGroups>();

  constructor(
    readonly version: string,
    records: { entities: EntityRecord[]; aliases: EntityAliasRecord[]; groups: GroupRecord[]; groupAliases: GroupAliasRecord[] },
  ) {
    for (const entity of records.entities) {
      this.entities.set(entity.id, entity);
      this.entityByName.set(nameKey(entity.name), entity);
      for (const merged of entity.mergedEntityIds) this.entityByMergedId.set(merged, entity);
    }
    for (const alias of records.aliases) {
      this.aliases.set(alias.id, alias);
      this.aliasByFactors.set(factorKey(alias.mountAccessor, alias.name), alias);
      const list = this.aliasesByEntity.get(alias.canonicalId) ?? [];
      list.push(alias);
      this.aliasesByEntity.set(alias.canonicalId, list);
    }
    for (const group of records.groups) {
      this.groups.set(group.id, group);
      this.groupByName.set(nameKey(group.name), group);
      for (const member of group.memberEntityIds) this.push(this.groupsByMember, member, group);
      for (const member of group.memberGroupIds) this.push(this.parentsOfGroup, member, group);
    }
    for (const alias of records.groupAliases) {
      this.groupAliases.set(alias.id, alias);
      this.groupAliasByFactors.set(factorKey(alias.mountAccessor, alias.name), alias);
      this.groupAliasByGroup.set(alias.canonicalId, alias);
    }
  }

  private push<T>(index: Map<string, T[]>, key: string, value: T): void {
    const list = index.get(key);
    if (list) list.push(value);
    else index.set(key, [value]);
  }

  entity(id: string): EntityRecord | undefined {
    return this.entities.get(id);
  }

  entityNamed(name: string): EntityRecord | undefined {
    return this.entityByName.get(nameKey(name));
  }

  /** An entity by its id or by the id of an entity merged into it (tokens keep the old id). */
  entityOrMerged(id: string): EntityRecord | undefined {
    return this.entities.get(id) ?? this.entityByMergedId.get(id);
  }

  aliasByName(mountAccessor: string, name: string): EntityAliasRecord | undefined {
    return this.aliasByFactors.get(factorKey(mountAccessor, name));
  }

  aliasesOf(entityId: string): EntityAliasRecord[] {
    return this.aliasesByEntity.get(entityId) ?? [];
  }

  group(id: string): GroupRecord | undefined {
    return this.groups.get(id);
  }

  groupNamed(name: string): GroupRecord | undefined {
    return this.groupByName.get(nameKey(name));
  }

  groupAliasByName(mountAccessor: string, name: string): GroupAliasRecord | undefined {
    return this.groupAliasByFactors.get(factorKey(mountAccessor, name));
  }

  groupAliasOf(groupId: string): GroupAliasRecord | undefined {
    return this.groupAliasByGroup.get(groupId);
  }

  /** Groups that list the group as a member (its parents). */
  parentsOf(groupId: string): GroupRecord[] {
    return this.parentsOfGroup.get(groupId) ?? [];
  }

  /** Whether `start` reaches `target` through member groups (adding `start` under `target` would close a loop). */
  reaches(start: string, target: string, seen = new Set<string>()): boolean {
    if (start === target) return true;
    if (seen.has(start)) return false;
    seen.add(start);
    return (this.groups.get(start)?.memberGroupIds ?? []).some((member) => this.reaches(member, target, seen));
  }

  /** The entity's direct groups, the groups above them, and the policies of all and of the entity. */
  groupsOf(entityId: string): EntityGroups {
    let found = this.entityGroups.get(entityId);
    if (found) return found;
    const direct = (this.groupsByMember.get(entityId) ?? []).map((group) => group.id);
    const inherited = new Set<string>();
    const pending = [...direct];
    while (pending.length > 0) {
      for (const parent of this.parentsOf(pending.pop() as string)) {
        if (!inherited.has(parent.id) && !direct.includes(parent.id)) {
          inherited.add(parent.id);
          pending.push(parent.id);
        }
      }
    }
    const policies = new Set(this.entities.get(entityId)?.policies ?? []);
    for (const id of [...direct, ...inherited]) for (const policy of this.groups.get(id)?.policies ?? []) policies.add(policy);
    found = { direct: direct.sort(), inherited: [...inherited].sort(), identityPolicies: [...policies].sort() };
    this.entityGroups.set(entityId, found);
    return found;
  }
}
