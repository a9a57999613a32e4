import { unprocessable } from '../../core/errors.js';
import { uuid } from '../../core/ids.js';
import type { ExecutionMode, StoredVcsRepo } from '../../store/tables.js';
import type { VcsRepoInput, WorkspaceSettingsInput } from './input.js';
import { checkToolVersion } from '../tool-versions/releases.js';

const POINTER = '/data/attributes';

/** What the stored execution settings become: `mode` null means "follow the organization". */
export interface ExecutionSettings {
  mode: ExecutionMode | null;
  agentPoolId: string | null;
}

/**
 * Applies the spec's rules between `execution-mode`, `operations` and `agent-pool-id`:
 * - `execution-mode` and `operations` are never given together;
 * - `operations: true` means remote, `false` means local (the deprecated spelling of the mode);
 * - `agent` needs a pool; a pool is refused with `remote`, `local` or `operations: true`.
 * `current` is the stored state (for create: inheriting, no pool); `organizationMode` is the
 * organization's default, in force while the workspace does not override it.
 */
export function resolveExecution(
  current: ExecutionSettings,
  input: WorkspaceSettingsInput,
  organizationMode: ExecutionMode,
): ExecutionSettings {
  if (input.executionMode !== undefined && input.operations !== undefined) {
    throw unprocessable('execution-mode and operations cannot be given together; use execution-mode', `${POINTER}/operations`);
  }
  const givenPool = input.agentPoolId ?? undefined;
  if (givenPool !== undefined && input.operations === true) {
    throw unprocessable('agent-pool-id cannot be given with operations: true', `${POINTER}/agent-pool-id`);
  }
  let mode: ExecutionMode | null = current.mode;
  if (input.executionMode !== undefined) mode = input.executionMode;
  else if (input.operations !== undefined) mode = input.operations ? 'remote' : 'local';
  else if (input.overwriteExecutionMode === false) mode = null;
  else if (input.overwriteExecutionMode === true && mode === null) mode = organizationMode;

  const effective = mode ?? organizationMode;
  if (effective !== 'agent') {
    if (givenPool !== undefined) {
      throw unprocessable(`agent-pool-id must not be given when execution-mode is ${effective}`, `${POINTER}/agent-pool-id`);
    }
    return { mode, agentPoolId: null };
  }
  // Inheriting agent mode uses the organization's default pool, unless the request names one.
  if (mode === null && givenPool === undefined) return { mode, agentPoolId: null };
  const pool = input.agentPoolId === null ? null : (givenPool ?? current.agentPoolId);
  if (!pool) throw unprocessable('agent-pool-id is required when execution-mode is agent', `${POINTER}/agent-pool-id`);
  return { mode: 'agent', agentPoolId: pool };
}

/** `:org/:repo`, or the Azure DevOps form `:org/:project/_git/:repo`. */
const IDENTIFIER = /^[^/\s]+\/[^/\s]+$|^[^/\s]+\/[^/\s]+\/_git\/[^/\s]+$/;

/**
 * The workspace's VCS repo after a request: null removes it, an object changes only the keys it
 * gives, and attaching a repo where there was none needs `oauth-token-id` and `identifier`.
 */
export function mergeVcsRepo(current: StoredVcsRepo | null, input: VcsRepoInput | null | undefined): StoredVcsRepo | null {
  if (input === undefined) return current;
  if (input === null) return null;
  const pointer = `${POINTER}/vcs-repo`;
  if (!current) {
    if (input['oauth-token-id'] === undefined && !input['github-app-installation-id']) {
      throw unprocessable('vcs-repo.oauth-token-id is required', `${pointer}/oauth-token-id`);
    }
    if (input.identifier === undefined) throw unprocessable('vcs-repo.identifier is required', `${pointer}/identifier`);
  }
  const merged: StoredVcsRepo = {
    'oauth-token-id': input['oauth-token-id'] ?? current?.['oauth-token-id'] ?? '',
    identifier: input.identifier ?? current?.identifier ?? '',
    branch: input.branch === undefined ? (current?.branch ?? '') : (input.branch ?? ''),
    'ingress-submodules': input['ingress-submodules'] ?? current?.['ingress-submodules'] ?? false,
    'tags-regex': input['tags-regex'] === undefined ? (current?.['tags-regex'] ?? null) : input['tags-regex'] || null,
    'github-app-installation-id':
      input['github-app-installation-id'] === undefined
        ? (current?.['github-app-installation-id'] ?? null)
        : input['github-app-installation-id'],
    'webhook-id': current?.['webhook-id'] ?? uuid(),
  };
  if (!IDENTIFIER.test(merged.identifier)) {
    throw unprocessable('vcs-repo.identifier must look like ":org/:repo" (or ":org/:project/_git/:repo")', `${pointer}/identifier`);
  }
  if (merged['tags-regex'] !== null) {
    try {
      new RegExp(merged['tags-regex']);
    } catch {
      throw unprocessable('vcs-repo.tags-regex is not a valid regular expression', `${pointer}/tags-regex`);
    }
  }
  return merged;
}

/** A `tool-version` value that names a known release or a satisfiable constraint, else a 422. */
export function validToolVersion(value: string, attributeName: string, releases: readonly string[]): string {
  const check = checkToolVersion(value, releases);
  if (!check.ok) throw unprocessable(`${attributeName} ${check.reason}`, `${POINTER}/${attributeName}`);
  return value.trim();
}
