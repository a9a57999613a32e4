import { spell, type Dialect } from '../../core/dialect.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { NoCodeRow } from './no-code-repo.js';
import type { ModuleRow, VersionSummary } from './repo.js';
import { newestFirst } from './rules.js';

export interface ModuleView {
  module: ModuleRow;
  organizationName: string;
  versions: VersionSummary[];
  noCode: NoCodeRow[];
  /** Whether the caller may delete, resync and retry (the owners-level right). */
  canManage: boolean;
  /** Absolute base of this server, for the webhook URL. */
  baseUrl: string;
  /** The module's webhook secret, opened for this document (null when it has none). */
  webhookSecret: string | null;
}

export function moduleSelfLink(
  module: Pick<ModuleRow, 'registryName' | 'namespace' | 'name' | 'provider'>,
  organizationName: string,
): string {
  const { registryName, namespace, name, provider } = module;
  return `/api/v2/organizations/${organizationName}/registry-modules/${registryName}/${namespace}/${name}/${provider}`;
}

export const webhookPath = (moduleId: string, secret: string) => `/api/registry/webhooks/${moduleId}/${secret}`;

function vcsRepo(view: ModuleView): Record<string, unknown> | null {
  const repo = view.module.vcsRepo;
  if (!repo) return null;
  return {
    branch: repo.branch,
    'ingress-submodules': repo.ingressSubmodules,
    identifier: repo.identifier,
    'display-identifier': repo.displayIdentifier,
    'oauth-token-id': repo.oauthTokenId,
    'webhook-url': view.webhookSecret === null ? null : `${view.baseUrl}${webhookPath(view.module.id, view.webhookSecret)}`,
  };
}

export function moduleResource(view: ModuleView): ResourceObject {
  const { module } = view;
  return {
    id: module.id,
    type: 'registry-modules',
    attributes: {
      name: module.name,
      namespace: module.namespace,
      provider: module.provider,
      'registry-name': module.registryName,
      status: module.status,
      'version-statuses': newestFirst(view.versions).map((version) => ({ version: version.version, status: version.status })),
      'no-code': module.noCode,
      'publishing-mechanism': module.vcsRepo ? 'git_tag' : null,
      'vcs-repo': vcsRepo(view),
      permissions: { 'can-delete': view.canManage, 'can-resync': view.canManage, 'can-retry': view.canManage },
      'created-at': module.createdAt.toISOString(),
      'updated-at': module.updatedAt.toISOString(),
    },
    relationships: {
      organization: { data: { id: view.organizationName, type: 'organizations' } },
      'no-code-modules': { data: view.noCode.map((row) => ({ id: row.id, type: 'no-code-modules' })) },
    },
    links: { self: moduleSelfLink(module, view.organizationName) },
  };
}

export function versionResource(version: VersionSummary, uploadUrl: string | null, dialect: Dialect): ResourceObject {
  return {
    id: version.id,
    type: 'registry-module-versions',
    attributes: {
      version: version.version,
      status: version.status,
      source: spell(version.source, dialect),
      'created-at': version.createdAt.toISOString(),
      'updated-at': version.updatedAt.toISOString(),
    },
    relationships: { 'registry-module': { data: { id: version.moduleId, type: 'registry-modules' } } },
    ...(uploadUrl === null ? {} : { links: { upload: uploadUrl } }),
  };
}

export function noCodeResource(row: NoCodeRow, organizationName: string): ResourceObject {
  return {
    id: row.id,
    type: 'no-code-modules',
    attributes: { enabled: row.enabled, 'version-pin': row.versionPin },
    relationships: {
      organization: { data: { id: organizationName, type: 'organizations' } },
      'registry-module': { data: { id: row.moduleId, type: 'registry-modules' } },
      'variable-options': { data: row.variableOptions.map((option) => ({ id: option.id, type: 'variable-options' })) },
    },
    links: { self: `/api/v2/no-code-modules/${row.id}` },
  };
}

export function variableOptionResources(row: NoCodeRow): ResourceObject[] {
  return row.variableOptions.map((option) => ({
    id: option.id,
    type: 'variable-options',
    attributes: { 'variable-name': option.variableName, 'variable-type': option.variableType, options: option.options },
  }));
}
