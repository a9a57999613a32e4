import { ApiError } from '../../core/errors.js';
import type { Db } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import { isSiteAdmin, type Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import * as organizationsRepo from '../organizations/repo.js';
import { OrganizationService } from '../organizations/service.js';
import * as repo from './repo.js';
import type { ModuleDetails } from '../../store/tables.js';
import type { ModuleRow, VersionSummary } from './repo.js';
import { latest, newestFirst } from './rules.js';

/** The registry protocol's module summary (`modules.v1` list, search and detail answers). */
export interface ProtocolModule {
  id: string;
  owner: string;
  namespace: string;
  name: string;
  version: string;
  provider: string;
  provider_logo_url: string;
  description: string;
  source: string;
  tag: string;
  published_at: string;
  downloads: number;
  verified: boolean;
}

export interface ProtocolQuery {
  q?: string;
  provider?: string;
  namespace?: string;
  offset: number;
  limit: number;
}

const ok = (versions: VersionSummary[]) => versions.filter((version) => version.status === 'ok');

function summary(module: ModuleRow, version: VersionSummary, details?: ModuleDetails): ProtocolModule {
  return {
    id: `${module.namespace}/${module.name}/${module.provider}/${version.version}`,
    owner: '',
    namespace: module.namespace,
    name: module.name,
    version: version.version,
    provider: module.provider,
    provider_logo_url: '',
    description:
      details?.root.readme
        .split('\n')
        .find((line) => line.trim() !== '' && !line.startsWith('#'))
        ?.trim() ?? '',
    source: module.vcsRepo?.displayIdentifier ?? '',
    tag: module.vcsRepo ? `v${version.version}` : '',
    published_at: version.createdAt.toISOString(),
    downloads: 0,
    verified: false,
  };
}

/**
 * Reads for the `modules.v1` protocol: the private registry of every organization the caller can
 * read, namespace = organization name, only versions whose archive parsed (`ok`).
 */
export class RegistryProtocol {
  constructor(
    private readonly db: Db,
    private readonly organizations: OrganizationService,
  ) {}

  private readableOrganizationIds(principal: Principal): string[] | 'all' {
    if (isSiteAdmin(principal)) return 'all';
    const candidates =
      principal.kind === 'user'
        ? organizationsRepo.organizationIdsOfUser(this.db, principal.user.id)
        : [principal.kind === 'team' ? principal.team.organizationId : principal.organization.id];
    const permissions = new Permissions(this.db);
    return candidates.filter((id) => permissions.can(principal, { id }, 'read'));
  }

  private organizationId(principal: Principal, namespace: string): string {
    return this.organizations.visible(principal, namespace).id;
  }

  list(principal: Principal, query: ProtocolQuery) {
    const organizationIds = query.namespace ? [this.organizationId(principal, query.namespace)] : this.readableOrganizationIds(principal);
    const { rows, total } = repo.listModules(
      this.db,
      {
        organizationIds,
        registryName: 'private',
        withOkVersion: true,
        ...(query.q ? { q: query.q } : {}),
        ...(query.provider ? { provider: query.provider } : {}),
      },
      query.offset,
      query.limit,
    );
    const versions = repo.versionsOf(
      this.db,
      rows.map((row) => row.id),
    );
    const chosen = rows.map((module) => ({ module, version: latest(ok(versions.filter((version) => version.moduleId === module.id)))! }));
    const details = repo.detailsOf(
      this.db,
      chosen.map((entry) => entry.version.id),
    );
    const modules = chosen.map(({ module, version }) => summary(module, version, details.get(version.id)));
    const meta: Record<string, number> = { limit: query.limit, current_offset: query.offset };
    if (query.offset + query.limit < total) meta['next_offset'] = query.offset + query.limit;
    if (query.offset > 0) meta['prev_offset'] = Math.max(0, query.offset - query.limit);
    return { meta, modules };
  }

  /** Modules of a name (every provider, or one), each with its `ok` versions, newest first; 404 if none. */
  private modules(
    principal: Principal,
    namespace: string,
    name: string,
    provider?: string,
  ): { module: ModuleRow; versions: VersionSummary[] }[] {
    const organizationId = this.organizationId(principal, namespace);
    const modules = repo.findModules(this.db, {
      organizationId,
      registryName: 'private',
      namespace,
      name,
      ...(provider ? { provider } : {}),
    });
    const versions = ok(
      repo.versionsOf(
        this.db,
        modules.map((module) => module.id),
      ),
    );
    const found = modules
      .map((module) => ({ module, versions: newestFirst(versions.filter((version) => version.moduleId === module.id)) }))
      .filter((entry) => entry.versions.length > 0);
    if (found.length === 0) throw new ApiError(404, 'module not found');
    return found;
  }

  private one(principal: Principal, namespace: string, name: string, provider: string) {
    return this.modules(principal, namespace, name, provider)[0]!;
  }

  versions(principal: Principal, namespace: string, name: string, provider: string) {
    const { module, versions } = this.one(principal, namespace, name, provider);
    return {
      modules: [
        {
          source: `${module.namespace}/${module.name}/${module.provider}`,
          versions: versions.map((version) => ({
            version: version.version,
            // The CLI reads only `version`; details stay on the per-version endpoint so this list stays cheap.
            root: { providers: [], dependencies: [] },
            submodules: [],
          })),
        },
      ],
    };
  }

  /** Latest version for every provider of a name. */
  latestForAll(principal: Principal, namespace: string, name: string, offset: number, limit: number) {
    const all = this.modules(principal, namespace, name).map(({ module, versions }) => summary(module, latest(versions)!));
    const meta: Record<string, number> = { limit, current_offset: offset };
    if (offset + limit < all.length) meta['next_offset'] = offset + limit;
    return { meta, modules: all.slice(offset, offset + limit) };
  }

  /** One version in full (the latest when `version` is absent). */
  detail(principal: Principal, namespace: string, name: string, provider: string, version?: string) {
    const { module, versions } = this.one(principal, namespace, name, provider);
    const chosen = version === undefined ? latest(versions) : versions.find((candidate) => candidate.version === version);
    if (!chosen) throw new ApiError(404, 'module version not found');
    const details = repo.detailsOf(this.db, [chosen.id]).get(chosen.id)!;
    return {
      ...summary(module, chosen, details),
      root: details.root,
      submodules: details.submodules,
      examples: details.examples,
      providers: [module.provider],
      versions: versions.map((candidate) => candidate.version),
    };
  }

  /** The version a download names, for a signed archive link. */
  downloadable(
    principal: Principal,
    namespace: string,
    name: string,
    provider: string,
    version: string,
  ): { module: ModuleRow; version: VersionSummary } {
    const { module, versions } = this.one(principal, namespace, name, provider);
    const chosen = versions.find((candidate) => candidate.version === version);
    if (!chosen) throw NOT_FOUND;
    return { module, version: chosen };
  }

  latestVersion(principal: Principal, namespace: string, name: string, provider: string): string {
    const { versions } = this.one(principal, namespace, name, provider);
    return latest(versions)!.version;
  }
}
