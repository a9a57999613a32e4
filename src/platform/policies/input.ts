import { unprocessable } from '../../core/errors.js';
import type { PolicyEnforcementLevel, PolicyKind } from '../../store/tables.js';
import { Attributes, relationshipIds } from '../jsonapi/body.js';
import { Attr, resourceBody } from '../jsonapi/schemas.js';
import type { MemberKind } from './repo.js';

export const POLICY_TYPES = ['policies'] as const;
export const POLICY_SET_TYPES = ['policy-sets'] as const;
export const KINDS: readonly PolicyKind[] = ['sentinel', 'opa'];

/** The enforcement levels each kind knows: OPA has no soft/hard distinction. */
export const LEVELS: Record<PolicyKind, readonly PolicyEnforcementLevel[]> = {
  sentinel: ['advisory', 'soft-mandatory', 'hard-mandatory'],
  opa: ['advisory', 'mandatory'],
};

const POINTER = '/data/attributes';
/** Names are identifiers: letters, digits, `-`, `_` and `.`, as the Go client checks before sending. */
const NAME = /^[A-Za-z0-9._-]+$/;
const NAME_TEXT = 'can only contain letters, numbers, dashes, underscores and periods';

export const POLICY_BODY = resourceBody(POLICY_TYPES, {
  attributes: {
    name: Attr.string('letters, numbers, -, _ and .; unique in the organization; fixed once created'),
    kind: Attr.string('sentinel (default) or opa; fixed once created'),
    query: Attr.string('opa only, required there: the rule the check evaluates'),
    description: Attr.string(),
    'enforcement-level': Attr.string('advisory, soft-mandatory or hard-mandatory (sentinel); advisory or mandatory (opa)'),
  },
});

export const POLICY_SET_BODY = resourceBody(POLICY_SET_TYPES, {
  attributes: {
    name: Attr.string('letters, numbers, -, _ and .; unique in the organization'),
    description: Attr.string(),
    kind: Attr.string('sentinel (default) or opa; fixed once created'),
    global: Attr.boolean('applies to every workspace but the excluded ones'),
    overridable: Attr.boolean('opa only: a failed mandatory policy may be overridden'),
    'agent-enabled': Attr.boolean(),
    'policy-tool-version': Attr.string(),
    'policies-path': Attr.string(),
  },
  relationships: ['policies', 'workspaces', 'projects', 'workspace-exclusions'],
});

export interface PolicyInput {
  name?: string;
  kind?: PolicyKind;
  query?: string | null;
  description?: string | null;
  enforcementLevel?: PolicyEnforcementLevel;
}

function name(attributes: Attributes, creating: boolean): string | undefined {
  const value = attributes.string('name', { required: creating, maxLength: 255 }) ?? undefined;
  if (value !== undefined && !NAME.test(value)) throw unprocessable(`name ${NAME_TEXT}`, `${POINTER}/name`);
  return value;
}

function kind(attributes: Attributes): PolicyKind | undefined {
  const value = attributes.string('kind') ?? undefined;
  if (value !== undefined && !KINDS.includes(value as PolicyKind)) throw unprocessable('kind must be sentinel or opa', `${POINTER}/kind`);
  return value as PolicyKind | undefined;
}

/**
 * The level, from `enforcement-level` or, for older clients, the first `enforce` entry's `mode`
 * (the deprecated attribute whose path named the policy file).
 */
function enforcementLevel(attributes: Attributes): string | undefined {
  const level = attributes.string('enforcement-level') ?? undefined;
  if (level !== undefined) return level;
  const enforce = attributes.array('enforce');
  if (!enforce || enforce.length === 0) return undefined;
  const first = enforce[0];
  const mode = typeof first === 'object' && first !== null ? (first as Record<string, unknown>)['mode'] : undefined;
  if (typeof mode !== 'string') throw unprocessable('enforce[0].mode must be an enforcement level', `${POINTER}/enforce/0/mode`);
  return mode;
}

/** Reads a policy body attribute by attribute; the level is judged against the kind by the service. */
export function readPolicyInput(raw: Record<string, unknown>, creating: boolean): PolicyInput & { level?: string } {
  const attributes = new Attributes(raw);
  const input: PolicyInput & { level?: string } = {};
  const given = name(attributes, creating);
  if (given !== undefined) input.name = given;
  const givenKind = kind(attributes);
  if (givenKind !== undefined) input.kind = givenKind;
  const query = attributes.string('query', { nullable: true });
  if (query !== undefined) input.query = query === '' ? null : query;
  const description = attributes.string('description', { nullable: true });
  if (description !== undefined) input.description = description;
  const level = enforcementLevel(attributes);
  if (level !== undefined) input.level = level;
  else if (creating) throw unprocessable('enforcement-level is required', `${POINTER}/enforcement-level`);
  return input;
}

/** The level checked against the policy's kind. */
export function checkedLevel(level: string, policyKind: PolicyKind): PolicyEnforcementLevel {
  const allowed = LEVELS[policyKind];
  if (!allowed.includes(level as PolicyEnforcementLevel)) {
    throw unprocessable(
      `enforcement-level must be one of ${allowed.join(', ')} for ${policyKind} policies`,
      `${POINTER}/enforcement-level`,
    );
  }
  return level as PolicyEnforcementLevel;
}

export interface PolicySetInput {
  name?: string;
  description?: string | null;
  kind?: PolicyKind;
  global?: boolean;
  overridable?: boolean;
  agentEnabled?: boolean;
  policyToolVersion?: string | null;
  policiesPath?: string | null;
  members: Partial<Record<MemberKind, string[]>>;
}

export const MEMBER_TYPES: Record<MemberKind, string> = {
  policies: 'policies',
  workspaces: 'workspaces',
  projects: 'projects',
  'workspace-exclusions': 'workspaces',
};

export function readPolicySetInput(
  raw: Record<string, unknown>,
  relationships: Record<string, unknown>,
  creating: boolean,
): PolicySetInput {
  const attributes = new Attributes(raw);
  if (attributes.has('vcs-repo') && raw['vcs-repo'] !== null) {
    throw unprocessable('vcs-repo is not supported here: upload a policy set version instead', `${POINTER}/vcs-repo`);
  }
  const input: PolicySetInput = { members: {} };
  const given = name(attributes, creating);
  if (given !== undefined) input.name = given;
  const description = attributes.string('description', { nullable: true });
  if (description !== undefined) input.description = description;
  const givenKind = kind(attributes);
  if (givenKind !== undefined) input.kind = givenKind;
  const global = attributes.boolean('global');
  if (global !== undefined) input.global = global;
  const overridable = attributes.boolean('overridable');
  if (overridable !== undefined) input.overridable = overridable;
  const agentEnabled = attributes.boolean('agent-enabled');
  if (agentEnabled !== undefined) input.agentEnabled = agentEnabled;
  const toolVersion = attributes.string('policy-tool-version', { nullable: true });
  if (toolVersion !== undefined) input.policyToolVersion = toolVersion === '' ? null : toolVersion;
  const path = attributes.string('policies-path', { nullable: true });
  if (path !== undefined) input.policiesPath = path === '' ? null : path;
  for (const member of Object.keys(MEMBER_TYPES) as MemberKind[]) {
    const ids = relationshipIds(relationships, member, MEMBER_TYPES[member]);
    if (ids !== undefined) input.members[member] = [...new Set(ids)];
  }
  return input;
}
