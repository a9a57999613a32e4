import type { Db, DbOrTx } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import {
  permissionFlags,
  WorkspacePermissions,
  type AccessLevel,
  type CallerScope,
  type WorkspacePermission,
} from '../auth/workspace-permissions.js';
import { IncludeRegistry, Included } from '../jsonapi/include.js';
import { organizationResource } from '../organizations/resource.js';
import { findTeams, findUsersByIds } from '../teams/repo.js';
import { teamResource } from '../teams/resource.js';
import type { TeamService } from '../teams/service.js';
import { userResource } from '../users/resource.js';
import { organizationServiceAccount } from '../users/service.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { tagsOfWorkspaces } from '../tags/repo.js';
import type { WorkspaceRow } from './repo.js';
import { workspaceResource, type RenderOptions } from './resource.js';

/**
 * `include` values of the workspace GET endpoints: the spec's list plus what the real client
 * sends. Those no domain has registered a loader for (readmes, tag bindings, …) are accepted and
 * include nothing.
 */
export const WORKSPACE_INCLUDES = [
  'organization',
  'current_configuration_version',
  'current_configuration_version.ingress_attributes',
  'current_run',
  'current_run.plan',
  'current_run.configuration_version',
  'current_run.configuration_version.ingress_attributes',
  'locked_by',
  'readme',
  'outputs',
  'effective_tag_bindings',
  'current-state-version',
  'project',
] as const;

export type WorkspaceIncludeName = (typeof WORKSPACE_INCLUDES)[number];

/** What an include loader gets: one page of one organization's workspaces, and who asks. */
export interface WorkspacePage {
  principal: Principal;
  organization: OrganizationRow;
  rows: readonly WorkspaceRow[];
  /** `scheme://host` of the request: included resources with links carry absolute ones. */
  origin: string;
}

export type WorkspaceIncludeLoader = (page: WorkspacePage) => readonly (ResourceObject | null | undefined)[];

/** What other domains contribute to a workspace's wire form; the platform's door wires them in. */
export interface WorkspaceViewParts {
  /** The ids of each current state version's outputs (the `outputs` relationship), for a page at once. */
  outputIds(stateVersionIds: readonly string[]): Map<string, string[]>;
  /** The ids of each workspace's variables (the `vars` relationship), for a page at once. */
  variableIds(workspaceIds: readonly string[]): Map<string, string[]>;
  /** The ids of each workspace's own and effective tag bindings, for a page at once. */
  tagBindingIds?(holders: readonly { id: string; projectId: string }[]): Map<string, { own: string[]; effective: string[] }>;
  /** A loader per include its owning domain registered. */
  includes: Partial<Record<WorkspaceIncludeName, WorkspaceIncludeLoader>>;
}

const currentStateVersionIds = (rows: readonly WorkspaceRow[]) =>
  rows.flatMap((row) => (row.currentStateVersionId ? [row.currentStateVersionId] : []));

/** Workspaces as wire objects, and what `include` adds to them. */
export class WorkspaceViews {
  readonly includes: IncludeRegistry<WorkspacePage>;

  constructor(
    private readonly db: DbOrTx,
    private readonly parts: WorkspaceViewParts,
  ) {
    const none: WorkspaceIncludeLoader = () => [];
    this.includes = new IncludeRegistry<WorkspacePage>(
      Object.fromEntries(WORKSPACE_INCLUDES.map((name) => [name, parts.includes[name] ?? none])),
    );
  }

  /**
   * Workspaces of one organization for one caller: tags, access levels and output ids are loaded
   * for the whole page in one query each, so a page costs the same whatever its size.
   */
  render(
    scope: CallerScope,
    organization: OrganizationRow,
    rows: readonly WorkspaceRow[],
    options: RenderOptions,
    /** The caller's levels when this request already worked them out from these very rows (a show). */
    knownLevels?: ReadonlyMap<string, AccessLevel | null>,
  ): ResourceObject[] {
    const ids = rows.map((row) => row.id);
    const tags = tagsOfWorkspaces(this.db, ids);
    const levels = knownLevels ?? new WorkspacePermissions(this.db).levels(scope, ids);
    const outputs = this.parts.outputIds(currentStateVersionIds(rows));
    const variables = this.parts.variableIds(ids);
    const bindings = this.parts.tagBindingIds?.(rows);
    // A page's rows mostly share one level: their flags are one object, built once, not one per row.
    const flagsByLevel = new Map<AccessLevel | null, Readonly<Record<WorkspacePermission, boolean>>>();
    const flagsOf = (level: AccessLevel | null) => {
      let flags = flagsByLevel.get(level);
      if (flags === undefined) {
        flags = Object.freeze(permissionFlags(level, scope.grants));
        flagsByLevel.set(level, flags);
      }
      return flags;
    };
    return rows.map((workspace) => {
      const permissions = flagsOf(levels.get(workspace.id) ?? null);
      const current = workspace.currentStateVersionId;
      const outputIds = current ? (outputs.get(current) ?? []) : [];
      const variableIds = variables.get(workspace.id) ?? [];
      return workspaceResource(
        {
          workspace,
          organization,
          tags: tags.get(workspace.id) ?? [],
          permissions,
          outputIds,
          variableIds,
          tagBindingIds: bindings?.get(workspace.id),
        },
        options,
      );
    });
  }

  /** What `wanted` asks for, for the page (added to `into` when given). */
  include(wanted: ReadonlySet<string>, page: WorkspacePage, into = new Included()): Included {
    return page.rows.length > 0 ? this.includes.collect(wanted, page, into) : into;
  }
}

/** The includes the workspace domain owns itself: its organization and who holds its lock (users and teams, one query each). */
export function workspaceOwnIncludes(db: Db, teams: TeamService): Record<'organization' | 'locked_by', WorkspaceIncludeLoader> {
  return {
    organization: ({ principal, organization }) => [
      organizationResource(organization, new Permissions(db).organization(principal, organization)),
    ],
    locked_by: ({ principal, organization, rows }: WorkspacePage) => {
      const holders = rows.flatMap(({ lockedBy }) => (lockedBy ? [lockedBy] : []));
      const idsOf = (kind: string) => [...new Set(holders.flatMap((holder) => (holder.kind === kind ? [holder.id] : [])))];
      const users = findUsersByIds(db, idsOf('user'));
      const teamIds = idsOf('team');
      const lockingTeams = new Map(
        teamIds.length === 0
          ? []
          : teams
              .views({ organization, grants: new Permissions(db).grants(principal, organization) }, findTeams(db, teamIds))
              .map((view) => [view.team.id, teamResource(view)]),
      );
      return holders.map((holder) => {
        if (holder.kind === 'user') {
          const user = users.get(holder.id);
          return user && userResource(user);
        }
        if (holder.kind === 'organization') return userResource(organizationServiceAccount(organization));
        return lockingTeams.get(holder.id);
      });
    },
  };
}
