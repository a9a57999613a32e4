import { unprocessable } from '../../core/errors.js';
import type { CustomWorkspaceAccess } from '../../store/schema/workspaces.js';
import type { Attributes } from '../jsonapi/body.js';

/** What each custom permission may be set to. */
const CHOICES = {
  runs: ['read', 'plan', 'apply'],
  variables: ['none', 'read', 'write'],
  'state-versions': ['none', 'read-outputs', 'read', 'write'],
  'sentinel-mocks': ['none', 'read'],
} as const;

/** Each custom permission's name as the API's messages spell it. */
const LABELS: Record<keyof CustomWorkspaceAccess, string> = {
  runs: 'Runs',
  variables: 'Variables',
  'state-versions': 'State versions',
  'sentinel-mocks': 'Sentinel mocks',
  'workspace-locking': 'Workspace locking',
  'run-tasks': 'Run tasks',
};

/**
 * A fixed level (read, plan, write, admin) decides every custom permission itself; setting one
 * alongside it is refused with the API's text rather than silently dropped.
 */
export function refuseCustomWithFixedLevel(access: string, attributes: Attributes): void {
  if (access === 'custom') return;
  for (const [name, label] of Object.entries(LABELS)) {
    if (!attributes.has(name)) continue;
    throw unprocessable(
      `${label} is read-only when access level is '${access}'; use the 'custom' access level to set this attribute.`,
      `/data/attributes/${name}`,
    );
  }
}

/** A new custom grant starts with read-only runs and nothing else; the body sets what it wants. */
export const CUSTOM_DEFAULTS: CustomWorkspaceAccess = {
  runs: 'read',
  variables: 'none',
  'state-versions': 'none',
  'sentinel-mocks': 'none',
  'workspace-locking': false,
  'run-tasks': false,
};

/** The custom permissions in the body laid over `base`; each value is checked against its choices. */
export function readCustomPermissions(attributes: Attributes, base: CustomWorkspaceAccess): CustomWorkspaceAccess {
  const result: CustomWorkspaceAccess = { ...base };
  for (const [name, choices] of Object.entries(CHOICES) as [keyof typeof CHOICES, readonly string[]][]) {
    const value = attributes.string(name);
    if (value === undefined || value === null) continue;
    if (!choices.includes(value)) throw unprocessable(`${name} must be one of ${choices.join(', ')}`, `/data/attributes/${name}`);
    (result as unknown as Record<string, string>)[name] = value;
  }
  for (const name of ['workspace-locking', 'run-tasks'] as const) {
    const value = attributes.boolean(name);
    if (value !== undefined) result[name] = value;
  }
  return result;
}
