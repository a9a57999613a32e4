import { unprocessable } from '../../core/errors.js';
import { editionAllows, type Edition } from '../../core/edition.js';
import type { ExecutionMode } from '../../store/tables.js';
import { Attributes } from '../jsonapi/body.js';
import { Attr, resourceBody } from '../jsonapi/schemas.js';

/** Workspace names: letters, numbers, `-`, `_`; the real service caps them at 90 characters. */
export const WORKSPACE_NAME = { pattern: /^[A-Za-z0-9_-]+$/, patternText: 'may contain only letters, numbers, "-" and "_"', maxLength: 90 };

/** The workspace create and update body; `terraform-version` and other upstream spellings are accepted too. */
export const WORKSPACE_BODY = resourceBody(['workspaces'], {
  attributes: {
    name: Attr.string('letters, numbers, "-" and "_", at most 90 characters'),
    description: Attr.string(),
    'execution-mode': Attr.string('remote, local or agent'),
    operations: Attr.boolean(),
    'agent-pool-id': Attr.string(),
    'auto-apply': Attr.boolean(),
    'auto-apply-run-trigger': Attr.boolean(),
    'auto-destroy-at': Attr.string('ISO 8601 timestamp'),
    'auto-destroy-activity-duration': Attr.string('such as "14d" or "12h"'),
    'allow-destroy-plan': Attr.boolean(),
    'file-triggers-enabled': Attr.boolean(),
    'global-remote-state': Attr.boolean(),
    'queue-all-runs': Attr.boolean(),
    'speculative-enabled': Attr.boolean(),
    'structured-run-output-enabled': Attr.boolean(),
    'assessments-enabled': Attr.boolean(),
    'tool-version': Attr.string('a version or a constraint; also accepted as terraform-version'),
    'trigger-prefixes': Attr.strings(),
    'trigger-patterns': Attr.strings(),
    'working-directory': Attr.string(),
    'vcs-repo': Attr.object(),
    'source-name': Attr.string(),
    'source-url': Attr.string(),
    'setting-overwrites': Attr.object(),
  },
  relationships: ['tags', 'project', 'tag-bindings'],
});

const EXECUTION_MODES: readonly ExecutionMode[] = ['remote', 'local', 'agent'];
const POINTER = '/data/attributes';

/** The `vcs-repo` keys of a request, as given (absent keys keep their previous value on update). */
export interface VcsRepoInput {
  'oauth-token-id'?: string;
  identifier?: string;
  branch?: string | null;
  'ingress-submodules'?: boolean;
  'tags-regex'?: string | null;
  'github-app-installation-id'?: string | null;
}

/** Everything a create or update body may set; undefined means "not given". */
export interface WorkspaceSettingsInput {
  name?: string;
  description?: string | null;
  executionMode?: ExecutionMode;
  operations?: boolean;
  agentPoolId?: string | null;
  autoApply?: boolean;
  autoApplyRunTrigger?: boolean;
  autoDestroyAt?: Date | null;
  autoDestroyActivityDuration?: string | null;
  allowDestroyPlan?: boolean;
  fileTriggersEnabled?: boolean;
  globalRemoteState?: boolean;
  queueAllRuns?: boolean;
  speculativeEnabled?: boolean;
  structuredRunOutputEnabled?: boolean;
  assessmentsEnabled?: boolean;
  toolVersion?: string;
  triggerPrefixes?: string[];
  triggerPatterns?: string[];
  workingDirectory?: string | null;
  /** null removes the repository. */
  vcsRepo?: VcsRepoInput | null;
  sourceName?: string | null;
  sourceUrl?: string | null;
  /** `setting-overwrites.execution-mode`: false means "follow the organization's default". */
  overwriteExecutionMode?: boolean;
}

function timestamp(attributes: Attributes, name: string): Date | null | undefined {
  const value = attributes.string(name, { nullable: true });
  if (value === undefined || value === null) return value;
  const parsed = new Date(value);
  // Only full ISO 8601 date-times: `Date` alone would also take "March 7" or a bare year.
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(parsed.getTime())) {
    throw unprocessable(`${name} must be an ISO 8601 timestamp`, `${POINTER}/${name}`);
  }
  return parsed;
}

function vcsRepo(attributes: Attributes): VcsRepoInput | null | undefined {
  const nested = attributes.nested('vcs-repo');
  if (nested === undefined || nested === null) return nested;
  const input: VcsRepoInput = {};
  const oauthTokenId = nested.string('oauth-token-id');
  if (oauthTokenId !== undefined && oauthTokenId !== null) input['oauth-token-id'] = oauthTokenId;
  const identifier = nested.string('identifier');
  if (identifier !== undefined && identifier !== null) input.identifier = identifier;
  const branch = nested.string('branch', { nullable: true });
  if (branch !== undefined) input.branch = branch;
  const submodules = nested.boolean('ingress-submodules');
  if (submodules !== undefined) input['ingress-submodules'] = submodules;
  const tagsRegex = nested.string('tags-regex', { nullable: true });
  if (tagsRegex !== undefined) input['tags-regex'] = tagsRegex;
  // The change history calls it `vcs-app-installation-id`; real clients send the GitHub-specific name.
  const installation = nested.has('github-app-installation-id')
    ? nested.string('github-app-installation-id', { nullable: true })
    : nested.string('vcs-app-installation-id', { nullable: true });
  if (installation !== undefined) input['github-app-installation-id'] = installation;
  return input;
}

/** Reads (and type-checks) a workspace body's attributes; the service applies the rules between them. */
export function readWorkspaceSettings(raw: Record<string, unknown>, edition: Edition): WorkspaceSettingsInput {
  const attributes = new Attributes(raw);
  const settings: WorkspaceSettingsInput = {};
  const set = <K extends keyof WorkspaceSettingsInput>(key: K, value: WorkspaceSettingsInput[K] | undefined) => {
    if (value !== undefined) settings[key] = value;
  };
  set('name', attributes.string('name', WORKSPACE_NAME) ?? undefined);
  set('description', attributes.string('description', { nullable: true }));
  const mode = attributes.string('execution-mode') ?? undefined;
  if (mode !== undefined && !EXECUTION_MODES.includes(mode as ExecutionMode)) {
    throw unprocessable(`execution-mode must be one of ${EXECUTION_MODES.join(', ')}`, `${POINTER}/execution-mode`);
  }
  set('executionMode', mode as ExecutionMode | undefined);
  set('operations', attributes.boolean('operations'));
  set('agentPoolId', attributes.string('agent-pool-id', { nullable: true }));
  set('autoApply', attributes.boolean('auto-apply'));
  set('autoApplyRunTrigger', attributes.boolean('auto-apply-run-trigger'));
  set('autoDestroyAt', timestamp(attributes, 'auto-destroy-at'));
  const activity = attributes.string('auto-destroy-activity-duration', {
    nullable: true,
    pattern: /^\d{1,4}[dh]$/,
    patternText: 'must be a number of days or hours such as "14d" or "12h"',
  });
  set('autoDestroyActivityDuration', activity);
  set('allowDestroyPlan', attributes.boolean('allow-destroy-plan'));
  set('fileTriggersEnabled', attributes.boolean('file-triggers-enabled'));
  set('globalRemoteState', attributes.boolean('global-remote-state'));
  set('queueAllRuns', attributes.boolean('queue-all-runs'));
  set('speculativeEnabled', attributes.boolean('speculative-enabled'));
  set('structuredRunOutputEnabled', attributes.boolean('structured-run-output-enabled'));
  // Hosted-only: the self-hosted edition has no such attribute, so a value sent there is ignored, as unknown attributes are.
  if (editionAllows.hostedOnlyAttributes(edition)) set('assessmentsEnabled', attributes.boolean('assessments-enabled'));
  set('toolVersion', attributes.string('tool-version') ?? undefined);
  set('triggerPrefixes', attributes.stringArray('trigger-prefixes'));
  set('triggerPatterns', attributes.stringArray('trigger-patterns'));
  set('workingDirectory', attributes.string('working-directory', { nullable: true }));
  set('vcsRepo', vcsRepo(attributes));
  set('sourceName', attributes.string('source-name', { nullable: true }));
  set('sourceUrl', attributes.string('source-url', { nullable: true }));
  const overwrites = attributes.nested('setting-overwrites');
  if (overwrites) set('overwriteExecutionMode', overwrites.boolean('execution-mode') ?? overwrites.boolean('agent-pool'));
  return settings;
}
