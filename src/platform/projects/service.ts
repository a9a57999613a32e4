import type { Clock } from '../../core/clock.js';
import { ApiError, conflict, unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db, DbOrTx } from '../../store/store.js';
import { Permissions, type OrganizationPermission } from '../auth/permissions.js';
import { projectPermissionsFor, projectPermissionsForMany, type ProjectPermission } from '../auth/project-permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import * as organizationsRepo from '../organizations/repo.js';
import * as repo from './repo.js';
import type { ProjectFilter, ProjectRow } from './repo.js';
import type { ProjectDetails } from './resource.js';
import type { TagBindingInput } from '../tag-bindings/rules.js';
import type { TagBindingService } from '../tag-bindings/service.js';

/** Letters, digits, `-`, `_` and inner spaces, 3 to 40 characters (the real service's rule). */
const NAME_PATTERN = /^[A-Za-z0-9_-](?:[A-Za-z0-9 _-]{1,38})[A-Za-z0-9_-]$/;

export interface ProjectInput {
  name?: string;
  description?: string | null;
  /** `14d`, `2h` (up to 4 digits and d or h); null turns auto-destroy off. */
  autoDestroyActivityDuration?: string | null;
  /** The `tag-bindings` relationship: replaces the project's bindings when given. */
  tagBindings?: readonly TagBindingInput[];
}

/** Where a create or update body's `tag-bindings` relationship sits, for the 422 of too many. */
const BINDINGS_POINTER = '/data/relationships/tag-bindings/data';

/** The real service's form of `auto-destroy-activity-duration`, and its refusal text. */
export const ACTIVITY_DURATION = /^\d{1,4}[dh]$/;
export const ACTIVITY_DURATION_TEXT =
  "Auto destroy activity duration has an incorrect format, we expect up to 4 numeric digits and 1 unit ('d' or 'h')";

export interface LocatedProject {
  project: ProjectRow;
  organization: OrganizationRow;
  grants: ReadonlySet<OrganizationPermission>;
  /** What the caller may do to this project (organization grants and team project access together). */
  rights: ReadonlySet<ProjectPermission>;
}

/**
 * Projects. Every member of an organization sees its projects; Manage Projects creates them, and
 * it or a team's project access (auth/project-permissions.ts) renames and deletes them. The default
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
    const standing = new Permissions(this.db).grants(principal, organization);
    if (!standing.permissions.has('read')) throw NOT_FOUND;
    return { project, organization, grants: standing.permissions, rights: projectPermissionsFor(this.db, standing, project.id) };
  }

  /** The caller's rights on and the counts of each of `rows` (all of `organization`), in a fixed number of queries. */
  details(principal: Principal, organization: Pick<OrganizationRow, 'id'>, rows: readonly ProjectRow[]): Map<string, ProjectDetails> {
    const standing = new Permissions(this.db).grants(principal, organization);
    const rights = projectPermissionsForMany(
      this.db,
      standing,
      rows.map((row) => row.id),
    );
    const counts = repo.countsOf(this.db, rows);
    return new Map(
      rows.map((row) => [
        row.id,
        {
          rights: rights.get(row.id) ?? new Set<ProjectPermission>(),
          workspaceCount: counts.get(row.id)?.workspaces ?? 0,
          teamCount: counts.get(row.id)?.teams ?? 0,
        },
      ]),
    );
  }

  list(principal: Principal, organizationName: string, filter: ProjectFilter, offset: number, limit: number) {
    const { organization, grants } = this.organization(principal, organizationName);
    return { organization, grants, ...repo.listProjects(this.db, organization.id, filter, offset, limit) };
  }

  private nameError(organizationId: string, name: string, except?: string): ApiError | null {
    if (!NAME_PATTERN.test(name)) {
      return unprocessable(
        'Name may only contain letters, numbers, spaces, hyphens and underscores, ' +
          'and must be 3 to 40 characters without leading or trailing spaces',
        '/data/attributes/name',
      );
    }
    const existing = repo.findProjectByName(this.db, organizationId, name);
    return existing && existing.id !== except ? unprocessable('name has already been taken', '/data/attributes/name') : null;
  }

  /**
   * Every invalid attribute of a body, reported together (the real service lists them all: a
   * duplicate name does not hide a malformed duration).
   */
  private checkAttributes(organizationId: string, input: ProjectInput, except?: string): void {
    const duration = input.autoDestroyActivityDuration;
    const errors = [
      input.name !== undefined ? this.nameError(organizationId, input.name, except) : null,
      typeof duration === 'string' && !ACTIVITY_DURATION.test(duration)
        ? unprocessable(ACTIVITY_DURATION_TEXT, '/data/attributes/auto-destroy-activity-duration')
        : null,
    ].filter((error): error is ApiError => error !== null);
    const [first, ...also] = errors;
    if (first) throw also.length > 0 ? new ApiError(422, first.detail, { ...first.options, also }) : first;
  }

  create(principal: Principal, organizationName: string, input: ProjectInput): LocatedProject {
    const { organization, grants } = this.organization(principal, organizationName);
    if (!grants.has('manage-projects')) throw NOT_FOUND;
    if (input.name === undefined) throw unprocessable('name is required', '/data/attributes/name');
    this.checkAttributes(organization.id, input);
    const at = this.clock.now();
    const project: ProjectRow = {
      id: newId('prj'),
      organizationId: organization.id,
      name: input.name,
      description: input.description ?? null,
      isDefault: false,
      autoDestroyActivityDuration: input.autoDestroyActivityDuration ?? null,
      createdAt: at,
      updatedAt: at,
    };
    this.db.transaction((tx) => {
      repo.insertProject(tx, project);
      if (input.tagBindings)
        this.tagBindings.replace(tx, { organizationId: organization.id, projectId: project.id }, input.tagBindings, BINDINGS_POINTER);
    });
    return this.locate(principal, project.id);
  }

  /** Changing a project (its settings or its tag bindings) needs its update right; others get the 404 of a missing one. */
  requireManage(located: LocatedProject): void {
    if (!located.rights.has('update')) throw NOT_FOUND;
  }

  update(located: LocatedProject, input: ProjectInput): LocatedProject {
    this.requireManage(located);
    this.checkAttributes(located.organization.id, input, located.project.id);
    const changes: Partial<ProjectRow> = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.autoDestroyActivityDuration !== undefined ? { autoDestroyActivityDuration: input.autoDestroyActivityDuration } : {}),
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
    if (!located.rights.has('destroy')) throw NOT_FOUND;
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

/** What a new workspace of project `projectId` takes as its `auto-destroy-activity-duration` when its create omits one. */
export function inheritedActivityDuration(db: DbOrTx, projectId: string): string | null {
  return repo.findProject(db, projectId)?.autoDestroyActivityDuration ?? null;
}
