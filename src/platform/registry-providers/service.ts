import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { SecretsAtRest } from '../../core/at-rest.js';
import type { Clock } from '../../core/clock.js';
import { ApiError, forbidden, unprocessable } from '../../core/errors.js';
import { newId, secretToken } from '../../core/ids.js';
import { OneAtATime } from '../../core/one-at-a-time.js';
import { withSpooledUpload, type ExpectedStart } from '../../core/upload-spool.js';
import type { Db } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { findOrganizationById } from '../organizations/repo.js';
import type { OrganizationService } from '../organizations/service.js';
import { validVersion } from '../registry/rules.js';
import * as repo from './repo.js';
import type { PlatformSummary, ProviderFilter, ProviderRow, VersionFile, VersionSummary } from './repo.js';
import { readRegistryName, validFilename, validName, validPlatformWord, validProtocols, validShasum, type RegistryName } from './rules.js';

/** Where a provider lives: `organizations/:org/registry-providers/:registry/:namespace/:name`. */
export interface ProviderAddress {
  organizationName: string;
  registryName: string;
  namespace: string;
  name: string;
}

export interface LoadedProvider {
  provider: ProviderRow;
  organization: OrganizationRow;
  versions: VersionSummary[];
  canManage: boolean;
}

export interface LoadedVersion {
  version: VersionSummary;
  provider: ProviderRow;
  platforms: PlatformSummary[];
  canManage: boolean;
}

/** Largest provider zip accepted (real providers are tens of megabytes). */
export const MAX_BINARY_BYTES = 256 * 1024 * 1024;
/** `SHA256SUMS` and its signature are a few lines and a few hundred bytes. */
export const MAX_SUMS_BYTES = 1024 * 1024;
const ZIP_MAGIC = Buffer.from('PK\x03\x04', 'latin1');

/** What an upload link fills. */
export type UploadSlot = { kind: 'version'; file: VersionFile } | { kind: 'binary' };

/**
 * The private provider registry's rules: providers of an organization (private ones in its own
 * namespace, public ones curated by name), their versions and platforms, and the uploads that
 * complete them. Managing takes Manage Providers; reading, membership of the organization.
 */
export class RegistryProviderService {
  /** Uploaded files are read back whole one at a time, so concurrent uploads never hold several. */
  private readonly storing = new OneAtATime();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly organizations: OrganizationService,
    private readonly atRest: SecretsAtRest,
  ) {}

  private organization(principal: Principal, organizationName: string) {
    const organization = this.organizations.visible(principal, organizationName);
    return { organization, canManage: new Permissions(this.db).can(principal, organization, 'manage-providers') };
  }

  private managed(principal: Principal, organizationName: string): OrganizationRow {
    const { organization, canManage } = this.organization(principal, organizationName);
    if (!canManage) throw NOT_FOUND;
    return organization;
  }

  /** A new upload secret as stored: its keyed digest (looked up) and sealed copy (rendered). */
  private newUpload(): { id: string; sealed: string } {
    const secret = secretToken(24);
    return { id: this.atRest.digest(secret), sealed: this.atRest.seal(secret) };
  }

  /** The secret of an upload link, opened to render the link. */
  openSecret(sealed: string): string | null {
    return this.atRest.open(sealed);
  }

  list(principal: Principal, organizationName: string, filter: ProviderFilter, offset: number, limit: number) {
    const { organization, canManage } = this.organization(principal, organizationName);
    const { rows, total } = repo.listProviders(this.db, organization.id, filter, offset, limit);
    const versions = repo.versionsOf(
      this.db,
      rows.map((row) => row.id),
    );
    const items: LoadedProvider[] = rows.map((provider) => ({
      provider,
      organization,
      canManage,
      versions: versions.filter((version) => version.providerId === provider.id),
    }));
    return { items, total };
  }

  create(
    principal: Principal,
    organizationName: string,
    input: { name?: string | null; namespace?: string | null; registryName?: string | null },
  ) {
    const organization = this.managed(principal, organizationName);
    const registryName = readRegistryName(input.registryName);
    const name = validName(input.name, 'name');
    const namespace = validName(input.namespace, 'namespace');
    if (registryName === 'private' && namespace !== organization.name) {
      throw unprocessable('Namespace must be the organization name for private providers', '/data/attributes/namespace');
    }
    const address = { organizationId: organization.id, registryName, namespace, name };
    if (repo.findProvider(this.db, address)) throw unprocessable('Name has already been taken', '/data/attributes/name');
    const at = this.clock.now();
    const provider: ProviderRow = { id: newId('prov'), ...address, createdAt: at, updatedAt: at };
    repo.insertProvider(this.db, provider);
    return { provider, organization, versions: [], canManage: true } satisfies LoadedProvider;
  }

  /** The provider at a full address, if the caller can read the organization. */
  get(principal: Principal, address: ProviderAddress): LoadedProvider {
    const { organization, canManage } = this.organization(principal, address.organizationName);
    const registryName = asRegistryName(address.registryName);
    const provider = repo.findProvider(this.db, { organizationId: organization.id, ...address, registryName });
    if (!provider) throw NOT_FOUND;
    return { provider, organization, canManage, versions: repo.versionsOf(this.db, [provider.id]) };
  }

  getById(principal: Principal, id: string): LoadedProvider {
    const provider = repo.findProviderById(this.db, id);
    const organization = provider && findOrganizationById(this.db, provider.organizationId);
    if (!provider || !organization) throw NOT_FOUND;
    return this.get(principal, {
      organizationName: organization.name,
      registryName: provider.registryName,
      namespace: provider.namespace,
      name: provider.name,
    });
  }

  /** `PATCH`: nothing a provider has can change here (tag bindings are refused by the route), but the right is checked. */
  update(principal: Principal, address: ProviderAddress): LoadedProvider {
    const loaded = this.get(principal, address);
    if (!loaded.canManage) throw NOT_FOUND;
    return loaded;
  }

  destroy(principal: Principal, address: ProviderAddress): void {
    const { provider, canManage } = this.get(principal, address);
    if (!canManage) throw NOT_FOUND;
    repo.deleteProvider(this.db, provider.id);
  }

  /** A private provider the caller may read, for its versions (public providers have none: 404). */
  private privateProvider(principal: Principal, address: ProviderAddress) {
    const loaded = this.get(principal, address);
    if (loaded.provider.registryName !== 'private') throw NOT_FOUND;
    return loaded;
  }

  listVersions(principal: Principal, address: ProviderAddress, offset: number, limit: number) {
    const { provider, canManage } = this.privateProvider(principal, address);
    const versions = repo.pageOfVersions(this.db, provider.id, offset, limit);
    const platforms = repo.platformsOf(
      this.db,
      versions.map((version) => version.id),
    );
    const items: LoadedVersion[] = versions.map((version) => ({
      version,
      provider,
      canManage,
      platforms: platforms.filter((platform) => platform.versionId === version.id),
    }));
    return { items, total: repo.countVersions(this.db, provider.id) };
  }

  createVersion(
    principal: Principal,
    address: ProviderAddress,
    input: { version?: string | null; keyId?: string | null; protocols?: string[] | undefined },
  ): LoadedVersion {
    if (address.registryName === 'public') throw forbidden('versions can only be created for private providers', { title: 'forbidden' });
    const { provider, canManage } = this.privateProvider(principal, address);
    if (!canManage) throw NOT_FOUND;
    if (!input.version) throw unprocessable("Version can't be blank", '/data/attributes/version');
    const version = validVersion(input.version);
    if (!input.keyId) throw unprocessable("Key can't be blank", '/data/attributes/key-id');
    const protocols = validProtocols(input.protocols);
    if (repo.findVersion(this.db, provider.id, version)) throw unprocessable('Version has already been taken', '/data/attributes/version');
    const at = this.clock.now();
    const sums = this.newUpload();
    const sig = this.newUpload();
    const row = {
      id: newId('provver'),
      providerId: provider.id,
      version,
      keyId: input.keyId.toUpperCase(),
      protocols,
      shasumsUploadId: sums.id,
      shasumsUploadSealed: sums.sealed,
      shasumsSigUploadId: sig.id,
      shasumsSigUploadSealed: sig.sealed,
      createdAt: at,
      updatedAt: at,
    };
    this.db.transaction((tx) => {
      repo.insertVersion(tx, row);
      repo.touchProvider(tx, provider.id, at);
    });
    return { version: { ...row, shasumsUploaded: false, shasumsSigUploaded: false }, provider, platforms: [], canManage };
  }

  getVersion(principal: Principal, address: ProviderAddress, version: string): LoadedVersion {
    const { provider, canManage } = this.privateProvider(principal, address);
    const found = repo.findVersion(this.db, provider.id, version);
    if (!found) throw NOT_FOUND;
    return { version: found, provider, canManage, platforms: repo.platformsOf(this.db, [found.id]) };
  }

  destroyVersion(principal: Principal, address: ProviderAddress, version: string): void {
    const { version: found, canManage } = this.getVersion(principal, address, version);
    if (!canManage) throw NOT_FOUND;
    repo.deleteVersion(this.db, found.id);
  }

  listPlatforms(principal: Principal, address: ProviderAddress, version: string) {
    return this.getVersion(principal, address, version).platforms;
  }

  createPlatform(
    principal: Principal,
    address: ProviderAddress,
    version: string,
    input: { os?: string | null; arch?: string | null; shasum?: string | null; filename?: string | null },
  ): PlatformSummary {
    if (address.registryName === 'public') throw forbidden('platforms can only be created for private providers', { title: 'forbidden' });
    const { version: found, canManage } = this.getVersion(principal, address, version);
    if (!canManage) throw NOT_FOUND;
    const os = validPlatformWord(input.os, 'os');
    const arch = validPlatformWord(input.arch, 'arch');
    const shasum = validShasum(input.shasum);
    const filename = validFilename(input.filename);
    if (repo.findPlatform(this.db, found.id, os, arch)) {
      throw unprocessable(`a platform for ${os}/${arch} already exists for this version`, '/data/attributes/os');
    }
    const at = this.clock.now();
    const upload = this.newUpload();
    const row = {
      id: newId('provpltfrm'),
      versionId: found.id,
      os,
      arch,
      filename,
      shasum,
      binaryUploadId: upload.id,
      binaryUploadSealed: upload.sealed,
      createdAt: at,
      updatedAt: at,
    };
    repo.insertPlatform(this.db, row);
    return { ...row, binaryUploaded: false };
  }

  getPlatform(principal: Principal, address: ProviderAddress, version: string, os: string, arch: string) {
    const { version: found, canManage } = this.getVersion(principal, address, version);
    const platform = repo.findPlatform(this.db, found.id, os, arch);
    if (!platform) throw NOT_FOUND;
    return { platform, canManage };
  }

  /** Platforms of these versions (for versions rendered in `included`). */
  platformsOf(versionIds: string[]): PlatformSummary[] {
    return repo.platformsOf(this.db, versionIds);
  }

  destroyPlatform(principal: Principal, address: ProviderAddress, version: string, os: string, arch: string): void {
    const { version: found, canManage } = this.getVersion(principal, address, version);
    if (!canManage) throw NOT_FOUND;
    const platform = repo.findPlatform(this.db, found.id, os, arch);
    if (!platform) throw NOT_FOUND;
    repo.deletePlatform(this.db, platform.id);
  }

  /** Which slot an upload secret opens, if any (looked up by digest: the store holds no secret). */
  private slotOf(uploadId: string): { slot: UploadSlot; id: string } | null {
    const sums = repo.findVersionByUpload(this.db, 'shasums', uploadId);
    if (sums) return { slot: { kind: 'version', file: 'shasums' }, id: sums.id };
    const sig = repo.findVersionByUpload(this.db, 'shasumsSig', uploadId);
    if (sig) return { slot: { kind: 'version', file: 'shasumsSig' }, id: sig.id };
    const platform = repo.findPlatformByUpload(this.db, uploadId);
    return platform ? { slot: { kind: 'binary' }, id: platform.id } : null;
  }

  /**
   * Stores what an upload link receives: `SHA256SUMS`, its detached signature, or a platform's
   * zip. The body is spooled to disk with its limit counted on the way; a zip must be a zip and
   * hash to the platform's `shasum`, or nothing is stored. Uploading again replaces the file.
   */
  async upload(secret: string, body: Readable | Buffer): Promise<void> {
    const uploadId = this.atRest.digest(secret);
    const target = this.slotOf(uploadId);
    if (!target) throw NOT_FOUND;
    const binary = target.slot.kind === 'binary';
    const limit = binary ? MAX_BINARY_BYTES : MAX_SUMS_BYTES;
    const tooLarge = () => new ApiError(413, `the upload is larger than ${limit} bytes`, { title: 'payload too large' });
    const expect: ExpectedStart | undefined = binary
      ? { bytes: ZIP_MAGIC, otherwise: () => unprocessable('the provider binary must be a zip archive') }
      : undefined;
    await withSpooledUpload(
      body,
      limit,
      tooLarge,
      async (spooled) =>
        this.storing.run(async () => {
          const content = await spooled.read();
          // Looked up again: the version or platform may have gone while the body streamed in.
          const again = this.slotOf(uploadId);
          if (!again) throw NOT_FOUND;
          const at = this.clock.now();
          if (again.slot.kind === 'version') {
            if (content.length === 0) throw unprocessable('the uploaded file is empty');
            repo.storeVersionFile(this.db, again.id, again.slot.file, content, at);
            return;
          }
          const platform = repo.findPlatformById(this.db, again.id);
          const digest = createHash('sha256').update(content).digest('hex');
          if (!platform || digest !== platform.shasum) {
            throw unprocessable(`the uploaded zip's SHA-256 (${digest}) is not the platform's shasum (${platform?.shasum ?? ''})`);
          }
          repo.storeBinary(this.db, again.id, content, at);
        }),
      expect,
    );
  }
}

/** A registry name in a path: anything but the two names addresses nothing. */
export function asRegistryName(value: string): RegistryName {
  if (value !== 'private' && value !== 'public') throw NOT_FOUND;
  return value;
}
