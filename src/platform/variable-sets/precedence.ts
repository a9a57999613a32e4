import { and, eq, or } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import type { DbOrTx } from '../../store/store.js';
import { variableSetProjects, variableSets, variableSetVariables, variableSetWorkspaces, workspaceVariables } from '../../store/tables.js';
import { findWorkspace } from '../workspaces/repo.js';
import { clearValue } from '../sensitive-values.js';

export type VariableSetRow = typeof variableSets.$inferSelect;

/** A variable in force for a workspace, and where it came from. */
export interface EffectiveVariable {
  id: string;
  key: string;
  value: string;
  category: 'terraform' | 'env';
  hcl: boolean;
  sensitive: boolean;
  description: string | null;
  source: { kind: 'workspace'; id: string } | { kind: 'variable-set'; id: string; name: string };
}

/** How directly a set reaches the workspace: the narrower scope wins a conflict. */
const SCOPE_RANK = { workspace: 0, project: 1, global: 2 } as const;
type Scope = keyof typeof SCOPE_RANK;

/** The sets that reach a workspace, each with the narrowest scope it reaches it by. */
export function setsReaching(db: DbOrTx, workspaceId: string): { set: VariableSetRow; scope: Scope }[] {
  const workspace = findWorkspace(db, workspaceId);
  if (!workspace) return [];
  const { projectId } = workspace;
  const direct = new Set(
    db
      .select({ id: variableSetWorkspaces.setId })
      .from(variableSetWorkspaces)
      .where(eq(variableSetWorkspaces.workspaceId, workspaceId))
      .all()
      .map((row) => row.id),
  );
  const byProject = new Set(
    db
      .select({ id: variableSetProjects.setId })
      .from(variableSetProjects)
      .where(eq(variableSetProjects.projectId, projectId))
      .all()
      .map((row) => row.id),
  );
  const sets = db
    .select()
    .from(variableSets)
    .where(
      and(
        eq(variableSets.organizationId, workspace.organizationId),
        or(eq(variableSets.global, true), inList(variableSets.id, [...direct, ...byProject])),
      ),
    )
    .all();
  return sets.map((set) => ({ set, scope: direct.has(set.id) ? 'workspace' : byProject.has(set.id) ? 'project' : 'global' }));
}

/**
 * The variables a run of the workspace uses, one per category and key. Highest first: priority
 * sets, then the workspace's own variables, then the other sets; among sets the narrower scope
 * (workspace, then project, then global) wins, and at the same scope the set whose name sorts
 * first. This is the one place the rule lives; runs and `GET /workspaces/:id/all-vars`-style
 * reads call it.
 */
export function effectiveVariables(db: DbOrTx, workspaceId: string): EffectiveVariable[] {
  const reaching = setsReaching(db, workspaceId).sort(
    (a, b) => SCOPE_RANK[a.scope] - SCOPE_RANK[b.scope] || (a.set.name < b.set.name ? -1 : a.set.name > b.set.name ? 1 : 0),
  );
  const setVariables = reaching.length
    ? db
        .select()
        .from(variableSetVariables)
        .where(
          inList(
            variableSetVariables.setId,
            reaching.map(({ set }) => set.id),
          ),
        )
        .all()
    : [];
  const fromSet = ({ set }: { set: VariableSetRow }): EffectiveVariable[] =>
    setVariables
      .filter((variable) => variable.setId === set.id)
      .map((variable) => ({ ...pick(db, variable), source: { kind: 'variable-set', id: set.id, name: set.name } }));
  const own: EffectiveVariable[] = db
    .select()
    .from(workspaceVariables)
    .where(eq(workspaceVariables.workspaceId, workspaceId))
    .all()
    .map((variable) => ({ ...pick(db, variable), source: { kind: 'workspace', id: workspaceId } }));
  const ranked = [
    ...reaching.filter(({ set }) => set.priority).flatMap(fromSet),
    ...own,
    ...reaching.filter(({ set }) => !set.priority).flatMap(fromSet),
  ];
  const seen = new Set<string>();
  return ranked.filter((variable) => {
    const key = `${variable.category}\u0000${variable.key}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The parts of a row a run uses, its value in clear (a sensitive one is stored sealed). */
function pick(db: DbOrTx, variable: Omit<EffectiveVariable, 'source'> & Record<string, unknown>): Omit<EffectiveVariable, 'source'> {
  const { id, key, category, hcl, sensitive, description } = variable;
  return { id, key, value: clearValue(db, variable), category, hcl, sensitive, description };
}
