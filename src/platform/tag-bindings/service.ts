import type { Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db, DbOrTx } from '../../store/store.js';
import * as repo from './repo.js';
import type { BindingOwner, TagBindingRow } from './repo.js';
import type { EffectiveBinding } from './resource.js';
import { checkCount, type TagBindingInput } from './rules.js';

/** A workspace as far as its bindings care: its id and its project (null: the default project). */
export interface BindingHolder {
  id: string;
  projectId: string;
}

/** The relationship ids a workspace document carries. */
export interface BindingIds {
  own: string[];
  effective: string[];
}

/**
 * Key/value tag bindings of workspaces and projects. Adding merges by key (a known key takes the
 * new value and keeps its place); a create or update's relationship replaces the whole set. A
 * workspace's effective bindings are its project's with its own laid over them.
 */
export class TagBindingService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  list(owner: BindingOwner): TagBindingRow[] {
    return repo.bindingsOf(this.db, owner);
  }

  /** Adds or re-values `inputs`; over the limit is a 422 at `base` and nothing changes. */
  merge(db: DbOrTx, owner: BindingOwner, inputs: readonly TagBindingInput[], base: string): TagBindingRow[] {
    const existing = repo.bindingsOf(db, owner);
    const byKey = new Map(existing.map((row) => [row.key, row]));
    const added = inputs.filter((input) => !byKey.has(input.key));
    checkCount(existing.length + added.length, base);
    let position = existing.reduce((last, row) => Math.max(last, row.position), 0);
    const at = this.clock.now();
    for (const input of inputs) {
      const known = byKey.get(input.key);
      if (known) {
        if (known.value !== input.value) repo.updateBindingValue(db, known.id, input.value);
        continue;
      }
      position += 1;
      repo.insertBinding(db, {
        id: newId('tb'),
        organizationId: owner.organizationId,
        workspaceId: 'workspaceId' in owner ? owner.workspaceId : null,
        projectId: 'projectId' in owner ? owner.projectId : null,
        key: input.key,
        value: input.value,
        position,
        createdAt: at,
      });
    }
    return repo.bindingsOf(db, owner);
  }

  /** Makes `inputs` the owner's whole set (an empty list removes every binding). */
  replace(db: DbOrTx, owner: BindingOwner, inputs: readonly TagBindingInput[], base: string): void {
    checkCount(inputs.length, base);
    repo.deleteBindingsOf(db, owner);
    this.merge(db, owner, inputs, base);
  }

  /** Effective bindings of many workspaces: own ones first, then the project's keys they do not override. */
  effectiveOf(holders: readonly BindingHolder[]): Map<string, EffectiveBinding[]> {
    const only = holders.length === 1 ? holders[0] : undefined;
    const { own, inherited } = only
      ? repo.bindingsOfWorkspaceAndProject(this.db, only.id, only.projectId)
      : {
          own: repo.bindingsOfWorkspaces(
            this.db,
            holders.map((holder) => holder.id),
          ),
          inherited: repo.bindingsOfProjects(
            this.db,
            holders.map((holder) => holder.projectId),
          ),
        };
    return new Map(
      holders.map((holder) => {
        const mine = own.get(holder.id) ?? [];
        const keys = new Set(mine.map((row) => row.key));
        const fromProject = (inherited.get(holder.projectId) ?? []).filter((row) => !keys.has(row.key));
        return [
          holder.id,
          [...mine.map((binding) => ({ binding })), ...fromProject.map((binding) => ({ binding, inheritedFrom: holder.projectId }))],
        ];
      }),
    );
  }

  /** The `tag-bindings` and `effective-tag-bindings` relationship ids of a page of workspaces. */
  idsOf(holders: readonly BindingHolder[]): Map<string, BindingIds> {
    const effective = this.effectiveOf(holders);
    return new Map(
      holders.map((holder) => {
        const bindings = effective.get(holder.id) ?? [];
        return [
          holder.id,
          {
            own: bindings.filter((entry) => !entry.inheritedFrom).map((entry) => entry.binding.id),
            effective: bindings.map((entry) => entry.binding.id),
          },
        ];
      }),
    );
  }

  /** Projects inherit nothing: their effective bindings are their own. */
  projectEffectiveOf(projectIds: readonly string[]): Map<string, EffectiveBinding[]> {
    const own = repo.bindingsOfProjects(this.db, projectIds);
    return new Map([...own].map(([id, rows]) => [id, rows.map((binding) => ({ binding }))]));
  }
}
