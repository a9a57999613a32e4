import type { StoredRetentionPolicy } from '../store/tables.js';

/** The wire type of each kind of data retention policy (a polymorphic relationship on organizations and workspaces). */
export const RETENTION_POLICY_TYPES = {
  'delete-older': 'data-retention-policy-delete-olders',
  'dont-delete': 'data-retention-policy-dont-deletes',
} as const satisfies Record<StoredRetentionPolicy['kind'], string>;

/**
 * The `data-retention-policy` relationship of an organization or a workspace, or nothing when it
 * has no policy of its own (so clients read it as unset). Only the self-hosted edition ever sets one.
 */
export function retentionPolicyRelationship(
  policy: StoredRetentionPolicy | null,
  ownerPath: string,
): Record<string, unknown> | Record<string, never> {
  if (policy === null) return {};
  return {
    'data-retention-policy': {
      data: { id: policy.id, type: RETENTION_POLICY_TYPES[policy.kind] },
      links: { related: `${ownerPath}/relationships/data-retention-policy` },
    },
  };
}
