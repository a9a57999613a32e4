import { isoTimestamp } from '../../core/clock.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { PolicyRow, PolicySetMembers, PolicySetRow } from './repo.js';

const identifiers = (type: string, ids: readonly string[]) => ({ data: ids.map((id) => ({ id, type })) });

/**
 * The `policies` resource. `enforce` is the deprecated form of the level the Go client still
 * decodes: one entry whose path names the policy file.
 */
export function policyResource(row: PolicyRow, organizationName: string, setIds: readonly string[]): ResourceObject {
  return {
    id: row.id,
    type: 'policies',
    attributes: {
      name: row.name,
      kind: row.kind,
      query: row.query,
      description: row.description,
      'enforcement-level': row.enforcementLevel,
      enforce: [{ path: `${row.name}.${row.kind === 'opa' ? 'rego' : 'sentinel'}`, mode: row.enforcementLevel }],
      'policy-set-count': setIds.length,
      'updated-at': isoTimestamp(row.updatedAt),
    },
    relationships: {
      organization: { data: { id: organizationName, type: 'organizations' } },
      'policy-sets': identifiers('policy-sets', setIds),
    },
    links: {
      self: `/api/v2/policies/${row.id}`,
      upload: `/api/v2/policies/${row.id}/upload`,
      download: `/api/v2/policies/${row.id}/download`,
    },
  };
}

/** A set's newest version and its newest ready one (null when it has none). */
export interface SetVersions {
  newest: string | null;
  current: string | null;
}

const version = (id: string | null) => ({ data: id === null ? null : { id, type: 'policy-set-versions' } });

export function policySetResource(
  row: PolicySetRow,
  organizationName: string,
  members: PolicySetMembers,
  versions: SetVersions = { newest: null, current: null },
): ResourceObject {
  return {
    id: row.id,
    type: 'policy-sets',
    attributes: {
      name: row.name,
      description: row.description,
      kind: row.kind,
      global: row.global,
      overridable: row.overridable,
      'agent-enabled': row.agentEnabled,
      'policy-tool-version': row.policyToolVersion,
      'policies-path': row.policiesPath,
      'policy-count': members.policies.length,
      'workspace-count': members.workspaces.length,
      'project-count': members.projects.length,
      'vcs-repo': null,
      'created-at': isoTimestamp(row.createdAt),
      'updated-at': isoTimestamp(row.updatedAt),
    },
    relationships: {
      organization: { data: { id: organizationName, type: 'organizations' } },
      policies: identifiers('policies', members.policies),
      workspaces: identifiers('workspaces', members.workspaces),
      projects: identifiers('projects', members.projects),
      'workspace-exclusions': identifiers('workspaces', members['workspace-exclusions']),
      'newest-version': version(versions.newest),
      'current-version': version(versions.current),
    },
    links: { self: `/api/v2/policy-sets/${row.id}` },
  };
}
