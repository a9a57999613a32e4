import type { Readable } from 'node:stream';
import type { SecretsAtRest } from '../../core/at-rest.js';
import type { Clock } from '../../core/clock.js';
import { safeEqual } from '../../core/crypto.js';
import { editionAllows, type Edition } from '../../core/edition.js';
import { ApiError, forbidden, notFound } from '../../core/errors.js';
import { newId, secretToken } from '../../core/ids.js';
import { OneAtATime } from '../../core/one-at-a-time.js';
import { GZIP_MAGIC, withSpooledUpload } from '../../core/upload-spool.js';
import type { Db } from '../../store/store.js';
import type { ModuleDetails, ModuleVcsRepo } from '../../store/tables.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import * as organizationsRepo from '../organizations/repo.js';
import { OrganizationService } from '../organizations/service.js';
import { DEFAULT_ARCHIVE_LIMITS, rejected, unpackModule, type ArchiveLimits } from './archive.js';
import { extractDetails } from './details.js';
import { insertNoCode, newNoCodeRow, noCodeOf, updateNoCode, type NoCodeRow } from './no-code-repo.js';
import * as repo from './repo.js';
import type { ModuleFilter, ModuleRow, VersionSummary } from './repo.js';
import { validName, validNamespace, validProvider, validVersion, type RegistryName } from './rules.js';

export interface ModuleAddress {
  registryName: string;
  namespace: string;
  name: string;
  provider: string;
}

export interface CreateModule {
  name: string;
  provider: string;
  namespace?: string;
  registryName: RegistryName;
  noCode: boolean;
  vcsRepo?: Omit<ModuleVcsRepo, 'webhookDigest' | 'webhookSealed'>;
}

export interface Loaded {
  module: ModuleRow;
  organization: OrganizationRow;
  versions: VersionSummary[];
  /** Its no-code module, if it has one (a list, as the relationship is on the wire). */
  noCode: NoCodeRow[];
  canManage: boolean;
}

/** What `PATCH` of a module may change; `vcs-repo` and `test-config` are checked by the route. */
export interface UpdateModule {
  noCode?: boolean;
}

const PUBLIC_CURATION_DISABLED = () => forbidden('public module curation is not available in this edition', { title: 'forbidden' });

/** The module registry's rules; routes translate wire shapes, the repo runs queries. */
export class RegistryService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly edition: Edition,
    private readonly organizations: OrganizationService,
    private readonly atRest: SecretsAtRest,
    private readonly limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
  ) {}

  /** Stored archives are read back whole one at a time, so concurrent uploads never hold several. */
  private readonly storing = new OneAtATime();

  /** The organization if the caller may read it (404 otherwise), and whether it may manage modules. */
  organization(principal: Principal, organizationName: string): { organization: OrganizationRow; canManage: boolean } {
    const organization = this.organizations.visible(principal, organizationName);
    return { organization, canManage: new Permissions(this.db).can(principal, organization, 'manage-modules') };
  }

  private managed(principal: Principal, organizationName: string): OrganizationRow {
    const { organization, canManage } = this.organization(principal, organizationName);
    if (!canManage) throw NOT_FOUND;
    return organization;
  }

  /** `public` only where the edition curates public modules: 403 otherwise, as the spec answers. */
  private registryName(value: string): RegistryName {
    if (value === 'public') {
      if (!editionAllows.publicRegistry(this.edition)) throw PUBLIC_CURATION_DISABLED();
      return 'public';
    }
    if (value === 'private') return 'private';
    throw NOT_FOUND;
  }

  /** A new self-authorising secret, as stored: its digest and its sealed copy (the secret itself is never written). */
  private newSecret(): { digest: string; sealed: string } {
    const secret = secretToken(24);
    return { digest: this.atRest.digest(secret), sealed: this.atRest.seal(secret) };
  }

  private newWebhook(): Pick<ModuleVcsRepo, 'webhookDigest' | 'webhookSealed'> {
    const { digest, sealed } = this.newSecret();
    return { webhookDigest: digest, webhookSealed: sealed };
  }

  private newUpload(): { uploadId: string; uploadSealed: string } {
    const { digest, sealed } = this.newSecret();
    return { uploadId: digest, uploadSealed: sealed };
  }

  /** The secret id of a version's upload link, for rendering the link (null if it cannot be opened). */
  uploadSecret(version: VersionSummary): string | null {
    return version.uploadSealed === null ? null : this.atRest.open(version.uploadSealed);
  }

  /** The secret of a VCS-linked module's webhook URL, for rendering it. */
  webhookSecret(module: ModuleRow): string | null {
    return module.vcsRepo ? this.atRest.open(module.vcsRepo.webhookSealed) : null;
  }

  /** Whether `secret` is the module's webhook secret (digests compared in constant time). */
  webhookMatches(module: ModuleRow, secret: string): boolean {
    return module.vcsRepo !== null && safeEqual(module.vcsRepo.webhookDigest, this.atRest.digest(secret));
  }

  private loaded(module: ModuleRow, organization: OrganizationRow, canManage: boolean): Loaded {
    return { module, organization, versions: repo.versionsOf(this.db, [module.id]), noCode: noCodeOf(this.db, [module.id]), canManage };
  }

  list(principal: Principal, organizationName: string, filter: Omit<ModuleFilter, 'organizationIds'>, offset: number, limit: number) {
    const { organization, canManage } = this.organization(principal, organizationName);
    const { rows, total } = repo.listModules(this.db, { ...filter, organizationIds: [organization.id] }, offset, limit);
    const ids = rows.map((row) => row.id);
    const versions = repo.versionsOf(this.db, ids);
    const noCode = noCodeOf(this.db, ids);
    const items: Loaded[] = rows.map((module) => ({
      module,
      organization,
      canManage,
      versions: versions.filter((version) => version.moduleId === module.id),
      noCode: noCode.filter((row) => row.moduleId === module.id),
    }));
    return { items, total };
  }

  create(principal: Principal, organizationName: string, input: CreateModule): Loaded {
    const organization = this.managed(principal, organizationName);
    const registryName = this.registryName(input.registryName);
    validName(input.name);
    validProvider(input.provider);
    let namespace = organization.name;
    if (registryName === 'public') {
      if (input.namespace === undefined)
        throw new ApiError(422, 'namespace is required for public modules', {
          title: 'invalid attribute',
          pointer: '/data/attributes/namespace',
        });
      namespace = validNamespace(input.namespace);
    } else if (input.namespace !== undefined && input.namespace !== organization.name) {
      throw new ApiError(422, 'namespace cannot be set for private modules', {
        title: 'invalid attribute',
        pointer: '/data/attributes/namespace',
      });
    }
    const address = { organizationId: organization.id, registryName, namespace, name: input.name, provider: input.provider };
    if (repo.findModules(this.db, address).length > 0) {
      throw new ApiError(422, 'a module with this name and provider already exists', {
        title: 'invalid attribute',
        pointer: '/data/attributes/name',
      });
    }
    const at = this.clock.now();
    const module: ModuleRow = {
      id: newId('mod'),
      ...address,
      status: 'pending',
      noCode: input.noCode,
      vcsRepo: input.vcsRepo ? { ...input.vcsRepo, ...this.newWebhook() } : null,
      createdAt: at,
      updatedAt: at,
    };
    this.db.transaction((tx) => {
      repo.insertModule(tx, module);
      // The deprecated `no-code` flag makes the module's no-code module (enabled, latest version).
      if (input.noCode) insertNoCode(tx, newNoCodeRow(module, at));
    });
    return this.loaded(module, organization, true);
  }

  /**
   * `PATCH` of a module: `no-code: true` enables its no-code module (making one when it has
   * none), `false` disables it. Managing modules takes Manage Modules (404 otherwise).
   */
  update(principal: Principal, organizationName: string, address: ModuleAddress, input: UpdateModule): Loaded {
    const { module, organization, canManage } = this.get(principal, organizationName, address);
    if (!canManage) throw NOT_FOUND;
    if (input.noCode === undefined) return this.loaded(module, organization, canManage);
    const noCode = input.noCode;
    const at = this.clock.now();
    this.db.transaction((tx) => {
      const [existing] = noCodeOf(tx, [module.id]);
      if (existing ? existing.enabled === noCode : !noCode) return;
      if (existing) updateNoCode(tx, existing, { enabled: noCode, updatedAt: at });
      else insertNoCode(tx, newNoCodeRow(module, at));
      repo.updateModule(tx, module.id, { updatedAt: at });
    });
    const updated = repo.findModuleById(this.db, module.id);
    if (!updated) throw NOT_FOUND;
    return this.loaded(updated, organization, canManage);
  }

  /** The module at a full address, readable by the caller; for public ones only where curation exists. */
  get(principal: Principal, organizationName: string, address: ModuleAddress): Loaded {
    const registryName = this.registryName(address.registryName);
    const { organization, canManage } = this.organization(principal, organizationName);
    if (registryName === 'private' && address.namespace !== organization.name) throw NOT_FOUND;
    const [module] = repo.findModules(this.db, { organizationId: organization.id, ...address, registryName });
    if (!module) throw NOT_FOUND;
    return this.loaded(module, organization, canManage);
  }

  getById(principal: Principal, id: string): Loaded {
    const module = repo.findModuleById(this.db, id);
    const organization = module && organizationsRepo.findOrganizationById(this.db, module.organizationId);
    if (!module || !organization) throw NOT_FOUND;
    const { canManage } = this.organization(principal, organization.name);
    return this.loaded(module, organization, canManage);
  }

  version(principal: Principal, organizationName: string, address: ModuleAddress, version: string): VersionSummary {
    const { module } = this.get(principal, organizationName, address);
    const found = repo.findVersion(this.db, module.id, version);
    if (!found) throw NOT_FOUND;
    return found;
  }

  createVersion(principal: Principal, organizationName: string, address: ModuleAddress, version: string): VersionSummary {
    const organization = this.managed(principal, organizationName);
    if (address.registryName === 'public') throw forbidden('versions cannot be created for public modules', { title: 'forbidden' });
    const [module] =
      address.registryName === 'private' && address.namespace === organization.name
        ? repo.findModules(this.db, { organizationId: organization.id, ...address })
        : [];
    if (!module) throw missingModule(organization.name, address);
    if (module.vcsRepo)
      throw new ApiError(422, 'versions of a VCS-linked module come from its tags', {
        title: 'invalid attribute',
        pointer: '/data/attributes/version',
      });
    validVersion(version);
    if (repo.findVersion(this.db, module.id, version)) {
      throw new ApiError(422, 'version has already been taken', { title: 'invalid attribute', pointer: '/data/attributes/version' });
    }
    return this.addVersion(module, version);
  }

  private addVersion(module: ModuleRow, version: string): VersionSummary {
    const at = this.clock.now();
    const row = {
      id: newId('modver'),
      moduleId: module.id,
      version,
      status: 'pending',
      source: 'svc-api',
      ...this.newUpload(),
      details: null,
      archive: null,
      createdAt: at,
      updatedAt: at,
    };
    repo.insertVersion(this.db, row);
    const { archive: _archive, details: _details, ...summary } = row;
    return summary;
  }

  /**
   * Deletes a version, a provider or a whole module, depending on how much of the address is
   * given. Public records go only by namespace and name; the last version takes its provider
   * with it, and the provider is the module row here, so one delete covers the cascade.
   */
  destroy(
    principal: Principal,
    organizationName: string,
    address: Omit<ModuleAddress, 'provider'> & { provider?: string; version?: string },
  ): void {
    const organization = this.managed(principal, organizationName);
    const registryName = this.registryName(address.registryName);
    if (registryName === 'public' && address.provider !== undefined) throw NOT_FOUND;
    if (registryName === 'private' && address.namespace !== organization.name) throw NOT_FOUND;
    const modules = repo.findModules(this.db, { organizationId: organization.id, ...address, registryName });
    if (modules.length === 0) throw NOT_FOUND;
    this.db.transaction((tx) => {
      if (address.version === undefined) {
        for (const module of modules) repo.deleteModule(tx, module.id);
        return;
      }
      const module = modules[0]!;
      const version = repo.findVersion(tx, module.id, address.version);
      if (!version) throw NOT_FOUND;
      repo.deleteVersion(tx, version.id);
      if (repo.countVersions(tx, module.id) === 0) repo.deleteModule(tx, module.id);
      else
        repo.updateModule(tx, module.id, {
          status: hasOk(repo.versionsOf(tx, [module.id])) ? 'setup_complete' : module.status,
          updatedAt: this.clock.now(),
        });
    });
  }

  /**
   * The deprecated delete by name alone: every module of that name in the organization, the
   * private one and, where the edition curates them, public records (the only form the spec's
   * delete rule leaves for public modules).
   */
  destroyNamed(principal: Principal, organizationName: string, name: string): void {
    const organization = this.managed(principal, organizationName);
    const registries: RegistryName[] = editionAllows.publicRegistry(this.edition) ? ['private', 'public'] : ['private'];
    const modules = repo
      .findModulesNamed(this.db, organization.id, name, registries)
      .filter((module) => module.registryName === 'public' || module.namespace === organization.name);
    if (modules.length === 0) throw NOT_FOUND;
    this.db.transaction((tx) => modules.forEach((module) => repo.deleteModule(tx, module.id)));
  }

  /**
   * Parses an upload and, only if it is a sound module, stores it and marks the version `ok`. The
   * body goes to a temporary file first (the size limit counted as it arrives) and is parsed from
   * there; only the write that stores it reads it whole, one upload at a time.
   */
  async upload(uploadSecret: string, body: Readable | Buffer): Promise<void> {
    // Looked up by digest: the store holds no upload secret to compare with.
    const uploadId = this.atRest.digest(uploadSecret);
    if (!repo.findVersionByUpload(this.db, uploadId)) throw NOT_FOUND;
    const { maxArchiveBytes } = this.limits;
    const tooLarge = () => rejected(`the archive is larger than ${maxArchiveBytes} bytes`);
    // A body that does not start as gzip is refused at its first bytes, not after the whole of it.
    const gzip = { bytes: GZIP_MAGIC, otherwise: () => rejected('the body is not a gzip stream') };
    await withSpooledUpload(
      body,
      maxArchiveBytes,
      tooLarge,
      async (spooled) => {
        const { files } = await unpackModule(spooled.stream(), this.limits);
        const details = await extractDetails(files);
        await this.storing.run(async () => {
          const archive = await spooled.read();
          // Looked up again: the version may have been deleted while the body streamed in.
          const version = repo.findVersionByUpload(this.db, uploadId);
          if (!version) throw NOT_FOUND;
          this.recordArchive(version, archive, details);
        });
      },
      gzip,
    );
  }

  private recordArchive(version: VersionSummary, archive: Buffer, details: ModuleDetails): void {
    const at = this.clock.now();
    this.db.transaction((tx) => {
      repo.updateVersion(tx, version.id, { status: 'ok', archive, details, updatedAt: at });
      repo.updateModule(tx, version.moduleId, { status: 'setup_complete', updatedAt: at });
    });
  }

  /** VCS ingestion: each tag's archive becomes a version (the parse runs before anything is written). */
  async ingest(
    module: ModuleRow,
    tagged: { version: string; archive: Buffer }[],
  ): Promise<{ added: string[]; failed: { version: string; error: string }[] }> {
    const added: string[] = [];
    const failed: { version: string; error: string }[] = [];
    for (const { version, archive } of tagged) {
      if (repo.findVersion(this.db, module.id, version)) continue;
      try {
        const unpacked = await unpackModule(archive, this.limits);
        const details = await extractDetails(unpacked.files);
        if (!repo.findModuleById(this.db, module.id)) break;
        this.db.transaction((tx) => {
          const row = this.addVersionIn(tx, module, version);
          repo.updateVersion(tx, row, { status: 'ok', archive, details, updatedAt: this.clock.now() });
          repo.updateModule(tx, module.id, { status: 'setup_complete', updatedAt: this.clock.now() });
        });
        added.push(version);
      } catch (error) {
        failed.push({ version, error: (error as Error).message });
      }
    }
    if (added.length === 0 && repo.versionsOf(this.db, [module.id]).length === 0 && repo.findModuleById(this.db, module.id)) {
      repo.updateModule(this.db, module.id, { status: 'no_version_tags', updatedAt: this.clock.now() });
    }
    return { added, failed };
  }

  private addVersionIn(tx: Parameters<Parameters<Db['transaction']>[0]>[0], module: ModuleRow, version: string): string {
    const at = this.clock.now();
    const id = newId('modver');
    repo.insertVersion(tx, {
      id,
      moduleId: module.id,
      version,
      status: 'pending',
      source: 'vcs',
      ...this.newUpload(),
      details: null,
      archive: null,
      createdAt: at,
      updatedAt: at,
    });
    return id;
  }
}

/** A version's module is named in the 404, so a typo in the address shows in the answer. */
function missingModule(organizationName: string, address: ModuleAddress) {
  const { registryName, namespace, name, provider } = address;
  return notFound(`registry module ${registryName}/${namespace}/${name}/${provider} not found in organization ${organizationName}`, {
    title: 'not found',
  });
}

const hasOk = (versions: VersionSummary[]) => versions.some((version) => version.status === 'ok');
