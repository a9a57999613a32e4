import { randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { Permissions, type OrganizationPermission } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { refusingDuplicates } from '../db-errors.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { findOrganizationById, findOrganizationByName } from '../organizations/repo.js';
import { defaultProjectId } from '../default-project.js';
import { findProject } from '../projects/repo.js';
import { checkVariableShape, type VariableInput } from '../variables/service.js';
import { findWorkspace } from '../workspaces/repo.js';
import type { WorkspaceService } from '../workspaces/service.js';
import { effectiveVariables, setsReaching, type EffectiveVariable, type VariableSetRow } from './precedence.js';
import * as repo from './repo.js';
import type { SetVariableRow } from './repo.js';

const POINTER = '/data/attributes';

export interface VariableSetInput {
  name?: string;
  description?: string | null;
  global?: boolean;
  priority?: boolean;
}

/**
 * Variable sets of an organization. Members read them; changing them, what they apply to and
 * their variables needs Manage Workspaces (owners have it). Others meet the missing-resource 404.
 */
export class VariableSetService {
  private readonly permissions: Permissions;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly workspaces: WorkspaceService,
  ) {
    this.permissions = new Permissions(db);
  }

  organization(principal: Principal, name: string, need: OrganizationPermission = 'read'): OrganizationRow {
    const organization = findOrganizationByName(this.db, name);
    if (!organization) throw NOT_FOUND;
    this.permissions.require(principal, organization, need);
    return organization;
  }

  visible(principal: Principal, id: string, need: OrganizationPermission = 'read'): { set: VariableSetRow; organization: OrganizationRow } {
    const set = repo.findSet(this.db, id);
    const organization = set && findOrganizationById(this.db, set.organizationId);
    if (!set || !organization) throw NOT_FOUND;
    this.permissions.require(principal, organization, need);
    return { set, organization };
  }

  list(organization: OrganizationRow, q: string | undefined): VariableSetRow[] {
    const wanted = q?.toLowerCase();
    return repo.setsOf(this.db, organization.id).filter((set) => wanted === undefined || set.name.toLowerCase().includes(wanted));
  }

  /** The sets that reach a workspace (global, by project, or applied), for readers of its variables. */
  forWorkspace(principal: Principal, workspaceId: string): VariableSetRow[] {
    this.workspaces.require(this.workspaces.locate(principal, workspaceId), 'can-read-variable');
    return setsReaching(this.db, workspaceId).map(({ set }) => set);
  }

  /** The variables a run of the workspace uses, after precedence (precedence.ts); no permission check. */
  effectiveVariables(workspaceId: string): EffectiveVariable[] {
    return effectiveVariables(this.db, workspaceId);
  }

  create(principal: Principal, organizationName: string, input: VariableSetInput, members: { workspaces?: string[]; projects?: string[] }) {
    const organization = this.organization(principal, organizationName, 'manage-workspaces');
    const name = this.checkName(organization, input.name);
    const now = this.clock.now();
    const set: VariableSetRow = {
      id: newId('varset'),
      organizationId: organization.id,
      name,
      description: input.description ?? '',
      global: input.global ?? false,
      priority: input.priority ?? false,
      createdAt: now,
      updatedAt: now,
    };
    this.checkMembers(organization, set, members);
    refusingDuplicates(
      () =>
        this.db.transaction((tx) => {
          repo.insertSet(tx, set);
          repo.addWorkspaces(tx, set.id, members.workspaces ?? []);
          repo.addProjects(tx, set.id, members.projects ?? []);
        }),
      () => unprocessable('name has already been taken', `${POINTER}/name`),
    );
    return { set, organization };
  }

  update(principal: Principal, id: string, input: VariableSetInput, members: { workspaces?: string[]; projects?: string[] }) {
    const { set, organization } = this.visible(principal, id, 'manage-workspaces');
    const name = input.name === undefined || input.name === set.name ? set.name : this.checkName(organization, input.name);
    const updated: VariableSetRow = {
      ...set,
      name,
      ...(input.description !== undefined ? { description: input.description ?? '' } : {}),
      ...(input.global !== undefined ? { global: input.global } : {}),
      ...(input.priority !== undefined ? { priority: input.priority } : {}),
      updatedAt: this.clock.now(),
    };
    this.checkMembers(organization, updated, members);
    this.db.transaction((tx) => {
      repo.updateSet(tx, id, {
        name,
        description: updated.description,
        global: updated.global,
        priority: updated.priority,
        updatedAt: updated.updatedAt,
      });
      if (members.workspaces) {
        repo.removeWorkspaces(
          tx,
          id,
          repo
            .membersOf(tx, [id])
            .workspaces.get(id)
            ?.map((row) => row.workspaceId) ?? [],
        );
        repo.addWorkspaces(tx, id, members.workspaces);
      }
      if (members.projects) {
        repo.removeProjects(
          tx,
          id,
          repo
            .membersOf(tx, [id])
            .projects.get(id)
            ?.map((row) => row.projectId) ?? [],
        );
        repo.addProjects(tx, id, members.projects);
      }
    });
    return { set: updated, organization };
  }

  destroy(principal: Principal, id: string): void {
    repo.deleteSet(this.db, this.visible(principal, id, 'manage-workspaces').set.id);
  }

  /** Applies the set to (or removes it from) workspaces or projects of its organization. */
  relate(principal: Principal, id: string, kind: 'workspaces' | 'projects', ids: string[], remove: boolean): void {
    const { set, organization } = this.visible(principal, id, 'manage-workspaces');
    this.checkMembers(organization, set, { [kind]: ids });
    if (kind === 'workspaces') (remove ? repo.removeWorkspaces : repo.addWorkspaces)(this.db, id, ids);
    else (remove ? repo.removeProjects : repo.addProjects)(this.db, id, ids);
  }

  variable(principal: Principal, setId: string, variableId: string, need: OrganizationPermission = 'read'): SetVariableRow {
    this.visible(principal, setId, need);
    const variable = repo.findSetVariable(this.db, variableId);
    if (!variable || variable.setId !== setId) throw NOT_FOUND;
    return variable;
  }

  createVariable(principal: Principal, setId: string, input: VariableInput): SetVariableRow {
    this.visible(principal, setId, 'manage-workspaces');
    if (input.key === undefined || input.key === '') throw unprocessable("key can't be blank", `${POINTER}/key`);
    if (input.category === undefined) throw unprocessable('category is required: terraform or env', `${POINTER}/category`);
    const variable: SetVariableRow = {
      id: newId('var'),
      setId,
      key: input.key,
      value: input.value ?? '',
      description: input.description ?? null,
      category: input.category,
      hcl: input.hcl ?? false,
      sensitive: input.sensitive ?? false,
      versionId: randomBytes(20).toString('hex'),
      createdAt: this.clock.now(),
    };
    checkVariableShape(variable);
    refusingDuplicates(
      () => repo.insertSetVariable(this.db, variable),
      () => unprocessable('key has already been taken', `${POINTER}/key`),
    );
    return variable;
  }

  updateVariable(principal: Principal, setId: string, variableId: string, input: VariableInput): SetVariableRow {
    const current = this.variable(principal, setId, variableId, 'manage-workspaces');
    if (current.sensitive && input.sensitive === false) {
      throw unprocessable('a sensitive variable cannot be made non-sensitive', `${POINTER}/sensitive`);
    }
    const changes = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<SetVariableRow>;
    // Every PATCH is a new version, one that sets nothing too (as on workspace variables).
    const updated: SetVariableRow = { ...current, ...changes, versionId: randomBytes(20).toString('hex') };
    if (updated.key === '') throw unprocessable("key can't be blank", `${POINTER}/key`);
    checkVariableShape(updated);
    refusingDuplicates(
      () => repo.updateSetVariable(this.db, variableId, { ...changes, versionId: updated.versionId }),
      () => unprocessable('key has already been taken', `${POINTER}/key`),
    );
    return updated;
  }

  destroyVariable(principal: Principal, setId: string, variableId: string): void {
    repo.deleteSetVariable(this.db, this.variable(principal, setId, variableId, 'manage-workspaces').id);
  }

  private checkName(organization: OrganizationRow, name: string | undefined): string {
    if (name === undefined || name.trim() === '') throw unprocessable("name can't be blank", `${POINTER}/name`);
    if (repo.findSetByName(this.db, organization.id, name)) throw unprocessable('name has already been taken', `${POINTER}/name`);
    return name;
  }

  /** Members must be the organization's own; a global set applies everywhere, so it takes none. */
  private checkMembers(organization: OrganizationRow, set: VariableSetRow, members: { workspaces?: string[]; projects?: string[] }): void {
    if (set.global && ((members.workspaces?.length ?? 0) > 0 || (members.projects?.length ?? 0) > 0)) {
      throw unprocessable('a global variable set applies to every workspace; it cannot be applied to some', `${POINTER}/global`);
    }
    for (const id of members.workspaces ?? []) {
      if (findWorkspace(this.db, id)?.organizationId !== organization.id) {
        throw unprocessable(`workspace ${id} is not a workspace of this organization`, '/data/relationships/workspaces');
      }
    }
    for (const id of members.projects ?? []) {
      const project = findProject(this.db, id);
      if (id !== defaultProjectId(organization.id) && project?.organizationId !== organization.id) {
        throw unprocessable(`project ${id} is not a project of this organization`, '/data/relationships/projects');
      }
    }
  }
}
