import { isoTimestamp } from '../../core/clock.js';
import { backingDataDeleted } from '../backing-data.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { organizationServiceAccount } from '../users/service.js';
import type { OrganizationRow } from '../auth/principal.js';
import { outputTypeName } from './state-file.js';
import type { StateVersionMeta, StateVersionOutputRow } from './repo.js';

/** The links a version's wire form carries: absolute, as clients fetch them with a bare HTTP client. */
export interface StateVersionLinks {
  download: string | null;
  jsonDownload: string | null;
  upload: string | null;
  jsonUpload: string | null;
}

function createdBy(version: StateVersionMeta, organization: OrganizationRow) {
  const creator = version.createdBy;
  if (!creator) return { data: null };
  if (creator.kind === 'organization') return { data: { id: organizationServiceAccount(organization).id, type: 'users' } };
  return { data: { id: creator.id, type: creator.kind === 'user' ? 'users' : 'teams' } };
}

export function stateVersionResource(
  version: StateVersionMeta,
  organization: OrganizationRow,
  outputs: readonly StateVersionOutputRow[],
  links: StateVersionLinks,
): ResourceObject {
  const processed = version.status === 'finalized' || backingDataDeleted(version.status);
  return {
    id: version.id,
    type: 'state-versions',
    attributes: {
      'created-at': isoTimestamp(version.createdAt),
      size: version.size,
      serial: version.serial,
      lineage: version.lineage,
      md5: version.md5,
      status: version.status,
      intermediate: false,
      'resources-processed': processed,
      'resource-count': version.resourceCount,
      'state-version': version.stateFormatVersion,
      'terraform-version': version.terraformVersion,
      'hosted-state-download-url': links.download,
      'hosted-json-state-download-url': links.jsonDownload,
      'hosted-state-upload-url': links.upload,
      'hosted-json-state-upload-url': links.jsonUpload,
      'vcs-commit-sha': null,
      'vcs-commit-url': null,
      'billable-rum-count': version.resourceCount,
      // Module, provider and resource summaries need the state parsed per resource type; not kept here.
      modules: null,
      providers: null,
      resources: null,
    },
    relationships: {
      run: { data: null },
      'created-by': createdBy(version, organization),
      workspace: { data: { id: version.workspaceId, type: 'workspaces' } },
      outputs: { data: outputs.map((output) => ({ id: output.id, type: 'state-version-outputs' })) },
    },
    links: { self: `/api/v2/state-versions/${version.id}` },
  };
}

/** An output; `revealSensitive` is for the read by id and the version's own output list, elsewhere sensitive values are hidden. */
export function stateVersionOutputResource(output: StateVersionOutputRow, revealSensitive: boolean): ResourceObject {
  return {
    id: output.id,
    type: 'state-version-outputs',
    attributes: {
      name: output.name,
      sensitive: output.sensitive,
      type: outputTypeName(output.detailedType),
      value: output.sensitive && !revealSensitive ? null : output.value,
      'detailed-type': output.detailedType,
    },
    links: { self: `/api/v2/state-version-outputs/${output.id}` },
  };
}

/** An output as the workspace's `outputs` relationship and `include=outputs` show it: sensitive values hidden. */
export function workspaceOutputResource(output: StateVersionOutputRow): ResourceObject {
  const resource = stateVersionOutputResource(output, false);
  return { ...resource, type: 'workspace-outputs', attributes: { ...resource.attributes, 'output-type': resource.attributes?.['type'] } };
}
