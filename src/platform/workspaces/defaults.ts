import type { DbOrTx } from '../../store/store.js';
import { newId } from '../../core/ids.js';
import type { WorkspaceRow } from './repo.js';
import { LATEST_RELEASE } from './tool-versions.js';

/**
 * The installation-wide `default-remote-state-access` administrator setting: what
 * `global-remote-state` becomes when a create request omits it. There is no administrator
 * settings API yet, so this answers the setting's documented default; the settings issue backs it
 * with its table by changing only this function.
 */
export function defaultRemoteStateAccess(_db: DbOrTx): boolean {
  return true;
}

/** A workspace row with every default of the create table, for the API and bulk fixtures alike. */
export function defaultWorkspaceRow(db: DbOrTx, organizationId: string, name: string, at: Date): WorkspaceRow {
  return {
    id: newId('ws'),
    organizationId,
    name,
    description: null,
    executionMode: null,
    agentPoolId: null,
    autoApply: false,
    autoApplyRunTrigger: false,
    autoDestroyAt: null,
    autoDestroyActivityDuration: null,
    allowDestroyPlan: true,
    fileTriggersEnabled: true,
    globalRemoteState: defaultRemoteStateAccess(db),
    queueAllRuns: false,
    speculativeEnabled: true,
    structuredRunOutputEnabled: true,
    assessmentsEnabled: false,
    toolVersion: LATEST_RELEASE,
    triggerPrefixes: [],
    triggerPatterns: [],
    workingDirectory: null,
    vcsRepo: null,
    source: 'svc-api',
    sourceName: null,
    sourceUrl: null,
    lockedBy: null,
    lockReason: null,
    sshKeyId: null,
    resourceCount: 0,
    createdAt: at,
    updatedAt: at,
    latestChangeAt: at,
  };
}
