import type { Clock } from '../../core/clock.js';
import { conflict, unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db, DbOrTx } from '../../store/store.js';
import { Permissions, type OrganizationPermission } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import * as organizationsRepo from '../organizations/repo.js';
import type { TagBindingInput } from '../tag-bindings/rules.js';
import type { TagBindingService } from '../tag-bindings/service.js';
import * as repo from './repo.js';
import type { ProjectFilter, ProjectRow } from './repo.js';

/** Letters, digits, `-`, `_` and inner spaces, 3 to 40 characters (the real service's rule). */
const NAME_PATTERN = /^[A-Za-z0-9_-](?:[A-Za-z0-9 _-]{1,38})[A-Za-z0-9_-]$/;

export interface ProjectInput {
  name?: string;
  description?: string | null;
  /** The `tag-bindings` relationship: replaces the project's bindings when given. */
  tagBindings?: readonly TagBindingInput[];
}

/** Where a create or update body's `tag-bindings` relationship sits, for the 422 of too many. */
const BINDINGS_POINTER = '/data/relationships/tag-bindings/data';

export interface LocatedProject {
  project: ProjectRow;
  organization: OrganizationRow;
  grants: ReadonlySet<OrganizationPermission>;
}

/**
 * Projects. Every member of an organization sees its projects (the grants of team project access
 * are not modelled beyond this); Manage Projects creates, renames and deletes them. The default
 * project can be renamed but never deleted, and no project is deleted while it holds workspaces.
 */
export class ProjectService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly tagBindings: TagBindingService,
  ) {}

  private organization(principal: Principal, name: string): { organization: OrganizationRow; grants: ReadonlySet<OrganizationPermission> } {
    const organization = organizationsRepo.findOrganizationByName(this.db, name);
    const grants = organization ? new Permissions(this.db).organization(principal, organization) : new Set<OrganizationPermission>();
    if (!organization || !grants.has('read')) throw NOT_FOUND;
    return { organization, grants };
  }

  locate(principal: Principal, id: string): LocatedProject {
    const project = repo.findProject(this.db, id);
    const organization = project && organizationsRepo.findOrganizationById(this.db, project.organizationId);
    if (!project || !organization) throw NOT_FOUND;
    const grants = new Permissions(this.db).organization(principal, organization);
    if (!grants.has('read')) throw NOT_FOUND;
    return { project, organization, grants };
  }

  list(principal: Principal, organizationName: string, filter: ProjectFilter, offset: number, limit: number) {
    const { organization, grants } = this.organization(principal, organizationName);
    return { organization, grants, ...repo.listProjects(this.db, organization.id, filter, offset, limit) };
  }

  private checkName(organizationId: string, name: string, except?: string): void {
    if (!NAME_PATTERN.test(name)) {
      throw unprocessable(
        'Name may only contain letters, numbers, spaces, hyphens and underscores, ' +
          'and must be 3 to 40 characters without leading or trailing spaces',
        '/data/attributes/name',
      );
    }
    const existing = repo.findProjectByName(this.db, organizationId, name);
    if (existing && existing.id !== except) throw unprocessable('name has already been taken', '/data/attributes/name');
  }

  create(principal: Principal, organizationName: string, input: ProjectInput): LocatedProject {
    const { organization, grants } = this.organization(principal, organizationName);
    if (!grants.has('manage-projects')) throw NOT_FOUND;
    if (input.name === undefined) throw unprocessable('name is required', '/data/attributes/name');
    this.checkName(organization.id, input.name);
    const at = this.clock.now();
    const project: ProjectRow = {
      id: newId('prj'),
      organizationId: organization.id,
      name: input.name,
      description: input.description ?? null,
      isDefault: false,
      createdAt: at,
      updatedAt: at,
    };
    this.db.transaction((tx) => {
      repo.insertProject(tx, project);
      if (input.tagBindings)
        this.tagBindings.replace(tx, { organizationId: organization.id, projectId: project.id }, input.tagBindings, BINDINGS_POINTER);
    });
    return { project, organization, grants };
  }

  /** Changing a project (its settings or its tag bindings) needs Manage Projects; others get the 404 of a missing one. */
  requireManage(located: LocatedProject): void {
    if (!located.grants.has('manage-projects')) throw NOT_FOUND;
  }

  update(located: LocatedProject, input: ProjectInput): LocatedProject {
    this.requireManage(located);
    if (input.name !== undefined) this.checkName(located.organization.id, input.name, located.project.id);
    const changes: Partial<ProjectRow> = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
    };
    const bindings = input.tagBindings;
    if (Object.keys(changes).length === 0 && !bindings) return located;
    this.db.transaction((tx) => {
      if (Object.keys(changes).length > 0) repo.updateProject(tx, located.project.id, { ...changes, updatedAt: this.clock.now() });
      if (bindings)
        this.tagBindings.replace(
          tx,
          { organizationId: located.organization.id, projectId: located.project.id },
          bindings,
          BINDINGS_POINTER,
        );
    });
    return { ...located, project: repo.findProject(this.db, located.project.id) ?? located.project };
  }

  destroy(located: LocatedProject): void {
    if (!located.grants.has('manage-projects')) throw NOT_FOUND;
    if (located.project.isDefault) throw conflict('The default project cannot be deleted');
    if (repo.holdsWorkspaces(this.db, located.project)) {
      throw conflict('Project cannot be deleted while it contains workspaces; move or delete them first');
    }
    repo.deleteProject(this.db, located.project.id);
  }
}

/**
 * The project a workspace create or update names (`relationships.project`), checked to be in the
 * organization: a 422 on the relationship otherwise. Null and undefined mean the default project.
 */
export function projectForWorkspace(db: DbOrTx, organizationId: string, id: string | null | undefined): string {
  if (id === null || id === undefined) return repo.defaultProjectId(organizationId);
  const project = repo.findProject(db, id);
  if (!project || project.organizationId !== organizationId) {
    throw unprocessable('the project does not exist in this organization', '/data/relationships/project/data/id');
  }
  return project.id;
}
