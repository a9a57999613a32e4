import { ApiError } from '../../core/errors.js';
import type { Db } from '../../store/store.js';
import type { Principal } from '../auth/principal.js';
import type { OrganizationService } from '../organizations/service.js';
import type { DownloadLinks } from '../registry/links.js';
import { newestFirst } from '../registry/rules.js';
import type { GpgKeyService } from './gpg-keys.js';
import * as repo from './repo.js';

export const PROVIDERS_V1 = '/api/registry/v1/providers/';
/** Where signed file links point; the last segment is the file's name, for the CLI's messages. */
export const PROVIDER_FILES = '/api/registry/provider-files/';
/** Where upload links point: the secret is the right to upload, as for module archives. */
export const PROVIDER_UPLOADS = '/api/registry/uploads/v1/provider-object/';

const notFound = (what: string) => new ApiError(404, `${what} not found`);

/** The file a signed link grants: a version's sums or signature, or a platform's zip. */
export type ProviderFile = { kind: 'shasums' | 'shasumsSig'; versionId: string } | { kind: 'binary'; platformId: string };

const sumsName = (name: string, version: string) => `terraform-provider-${name}_${version}_SHA256SUMS`;

/**
 * The `providers.v1` protocol the terraform CLI's installer speaks, for the private registry:
 * namespace = organization name. A version is offered once its `SHA256SUMS` and signature have
 * arrived, with the platforms whose zip has; downloads are signed links, because the CLI fetches
 * them without its registry token.
 */
export class ProviderProtocol {
  constructor(
    private readonly db: Db,
    private readonly organizations: OrganizationService,
    private readonly gpgKeys: GpgKeyService,
    private readonly links: DownloadLinks,
  ) {}

  private provider(principal: Principal, namespace: string, name: string) {
    const organization = this.organizations.visible(principal, namespace);
    const provider = repo.findProvider(this.db, { organizationId: organization.id, registryName: 'private', namespace, name });
    if (!provider) throw notFound(`provider ${namespace}/${name}`);
    return { organization, provider };
  }

  /** A signed, short-lived link to a stored file (`id` a version for its sums, a platform for its zip). */
  fileLink(baseUrl: string, id: string, fileName: string): string {
    return `${baseUrl}${PROVIDER_FILES}${this.links.token(id)}/${encodeURIComponent(fileName)}`;
  }

  uploadLink(baseUrl: string, secret: string): string {
    return `${baseUrl}${PROVIDER_UPLOADS}${secret}`;
  }

  versions(principal: Principal, namespace: string, name: string) {
    const { provider } = this.provider(principal, namespace, name);
    const { versions, platforms } = repo.installable(this.db, provider.id);
    const byVersion = new Map<string, { os: string; arch: string }[]>();
    for (const { versionId, os, arch } of platforms) {
      const list = byVersion.get(versionId);
      if (list) list.push({ os, arch });
      else byVersion.set(versionId, [{ os, arch }]);
    }
    return {
      id: `${namespace}/${name}`,
      versions: newestFirst(versions)
        .filter((version) => byVersion.has(version.id))
        .map((version) => ({ version: version.version, protocols: version.protocols, platforms: byVersion.get(version.id) })),
      warnings: null,
    };
  }

  download(principal: Principal, baseUrl: string, address: { namespace: string; name: string; version: string; os: string; arch: string }) {
    const { organization, provider } = this.provider(principal, address.namespace, address.name);
    const version = repo.findVersion(this.db, provider.id, address.version);
    if (!version || !version.shasumsUploaded || !version.shasumsSigUploaded) throw notFound(`version ${address.version}`);
    const platform = repo.findPlatform(this.db, version.id, address.os, address.arch);
    if (!platform || !platform.binaryUploaded) throw notFound(`platform ${address.os}/${address.arch} of version ${address.version}`);
    const link = (id: string, file: string) => this.fileLink(baseUrl, id, file);
    const sums = sumsName(provider.name, version.version);
    return {
      protocols: version.protocols,
      os: platform.os,
      arch: platform.arch,
      filename: platform.filename,
      download_url: link(platform.id, platform.filename),
      shasums_url: link(version.id, sums),
      shasums_signature_url: link(version.id, `${sums}.sig`),
      shasum: platform.shasum,
      signing_keys: {
        gpg_public_keys: this.gpgKeys.signingKeys(organization.id, version.keyId).map((key) => ({
          key_id: key.keyId,
          ascii_armor: key.asciiArmor,
          trust_signature: key.trustSignature,
          source: key.source,
          source_url: key.sourceUrl,
        })),
      },
    };
  }

  /** The bytes a signed link names, or null when the link is forged, expired or names nothing stored. */
  file(token: string, fileName: string): Buffer | null {
    const id = this.links.verify(token);
    if (id === null) return null;
    if (id.startsWith('provpltfrm-')) return repo.binaryOf(this.db, id);
    if (fileName.endsWith('_SHA256SUMS.sig')) return repo.versionFile(this.db, id, 'shasumsSig');
    if (fileName.endsWith('_SHA256SUMS')) return repo.versionFile(this.db, id, 'shasums');
    return null;
  }
}
