import type { ResourceObject } from '../jsonapi/types.js';
import type { LoadedKey } from './gpg-keys.js';
import type { PlatformSummary, ProviderRow, VersionSummary } from './repo.js';

/** Absolute links a document carries: where each upload goes, and signed download links once uploaded. */
export interface LinkMaker {
  upload(sealedSecret: string): string | null;
  download(id: string, file: string): string;
}

export const providerPath = (organizationName: string, provider: Pick<ProviderRow, 'registryName' | 'namespace' | 'name'>) =>
  `/api/v2/organizations/${organizationName}/registry-providers/${provider.registryName}/${provider.namespace}/${provider.name}`;

export function providerResource(
  provider: ProviderRow,
  organizationName: string,
  versions: VersionSummary[],
  canManage: boolean,
): ResourceObject {
  return {
    id: provider.id,
    type: 'registry-providers',
    attributes: {
      name: provider.name,
      namespace: provider.namespace,
      'registry-name': provider.registryName,
      permissions: { 'can-delete': canManage },
      'created-at': provider.createdAt.toISOString(),
      'updated-at': provider.updatedAt.toISOString(),
    },
    relationships: {
      organization: { data: { id: organizationName, type: 'organizations' } },
      'registry-provider-versions': { data: versions.map((version) => ({ id: version.id, type: 'registry-provider-versions' })) },
    },
    links: { self: providerPath(organizationName, provider) },
  };
}

/** Upload links until a file has arrived, then signed download links (what the real service does). */
function versionLinks(provider: ProviderRow, version: VersionSummary, links: LinkMaker): Record<string, string> {
  const sums = `terraform-provider-${provider.name}_${version.version}_SHA256SUMS`;
  const out: Record<string, string> = {};
  const sumsUpload = version.shasumsUploaded ? null : links.upload(version.shasumsUploadSealed);
  if (sumsUpload) out['shasums-upload'] = sumsUpload;
  const sigUpload = version.shasumsSigUploaded ? null : links.upload(version.shasumsSigUploadSealed);
  if (sigUpload) out['shasums-sig-upload'] = sigUpload;
  if (version.shasumsUploaded) out['shasums-download'] = links.download(version.id, sums);
  if (version.shasumsSigUploaded) out['shasums-sig-download'] = links.download(version.id, `${sums}.sig`);
  return out;
}

export function versionResource(
  provider: ProviderRow,
  version: VersionSummary,
  platforms: PlatformSummary[],
  canManage: boolean,
  links: LinkMaker,
): ResourceObject {
  return {
    id: version.id,
    type: 'registry-provider-versions',
    attributes: {
      version: version.version,
      'key-id': version.keyId,
      protocols: version.protocols,
      'shasums-uploaded': version.shasumsUploaded,
      'shasums-sig-uploaded': version.shasumsSigUploaded,
      permissions: { 'can-delete': canManage, 'can-upload-asset': canManage },
      'created-at': version.createdAt.toISOString(),
      'updated-at': version.updatedAt.toISOString(),
    },
    relationships: {
      'registry-provider': { data: { id: provider.id, type: 'registry-providers' } },
      platforms: { data: platforms.map((platform) => ({ id: platform.id, type: 'registry-provider-platforms' })) },
    },
    links: versionLinks(provider, version, links),
  };
}

export function platformResource(platform: PlatformSummary, canManage: boolean, links: LinkMaker): ResourceObject {
  const upload = platform.binaryUploaded ? null : links.upload(platform.binaryUploadSealed);
  return {
    id: platform.id,
    type: 'registry-provider-platforms',
    attributes: {
      os: platform.os,
      arch: platform.arch,
      filename: platform.filename,
      shasum: platform.shasum,
      'provider-binary-uploaded': platform.binaryUploaded,
      permissions: { 'can-delete': canManage, 'can-upload-asset': canManage },
    },
    relationships: { 'registry-provider-version': { data: { id: platform.versionId, type: 'registry-provider-versions' } } },
    links: platform.binaryUploaded
      ? { 'provider-binary-download': links.download(platform.id, platform.filename) }
      : upload
        ? { 'provider-binary-upload': upload }
        : {},
  };
}

export function gpgKeyResource({ key, namespace }: LoadedKey): ResourceObject {
  return {
    id: key.id,
    type: 'gpg-keys',
    attributes: {
      'ascii-armor': key.asciiArmor,
      'key-id': key.keyId,
      namespace,
      source: key.source,
      'source-url': key.sourceUrl,
      'trust-signature': key.trustSignature,
      'created-at': key.createdAt.toISOString(),
      'updated-at': key.updatedAt.toISOString(),
    },
    links: { self: `/api/registry/private/v2/gpg-keys/${namespace}/${key.keyId}` },
  };
}
