import { editionAllows, type Edition } from '../../core/edition.js';
import type { DbOrTx } from '../../store/store.js';
import { newId } from '../../core/ids.js';
import { defaultProjectId } from '../default-project.js';
import { defaultRemoteStateAccess as adminDefaultRemoteStateAccess } from '../admin-settings/service.js';
import type { WorkspaceRow } from './repo.js';
import { LATEST_RELEASE } from '../tool-versions/releases.js';

/**
 * The installation-wide `default-remote-state-access` administrator setting: what
 * `global-remote-state` becomes when a create request omits it.
 */
export function defaultRemoteStateAccess(db: DbOrTx): boolean {
  return adminDefaultRemoteStateAccess(db);
}

/** `global-remote-state` when a create omits it: the administrator's choice on self-hosted, false on hosted. */
export function defaultGlobalRemoteState(db: DbOrTx, edition: Edition): boolean {
  return editionAllows.remoteStateAccessSetting(edition) ? defaultRemoteStateAccess(db) : false;
}

/** A workspace row with every default of the create table, for the API and bulk fixtures alike. */
export function defaultWorkspaceRow(db: DbOrTx, organizationId: string, name: string, at: Date, edition: Edition): WorkspaceRow {
  return {
    id: newId('ws'),
    organizationId,
    name,
    description: null,
    executionMode: null,
    agentPoolId: null,
    dataRetentionPolicy: null,
    autoApply: false,
    autoApplyRunTrigger: false,
    autoDestroyAt: null,
    autoDestroyActivityDuration: null,
    allowDestroyPlan: true,
    fileTriggersEnabled: true,
    globalRemoteState: defaultGlobalRemoteState(db, edition),
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
    projectId: defaultProjectId(organizationId),
    currentStateVersionId: null,
    resourceCount: 0,
    currentRunId: null,
    latestRunId: null,
    currentConfigurationVersionId: null,
    runsCount: 0,
    runFailures: 0,
    planDurationTotalMs: 0,
    plansTimed: 0,
    applyDurationTotalMs: 0,
    appliesTimed: 0,
    createdAt: at,
    updatedAt: at,
    latestChangeAt: at,
  };
}
