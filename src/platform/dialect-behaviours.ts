import type { Dialect } from '../core/dialect.js';

/**
 * Behaviours (not spellings: those live in `core/dialect.ts`) where real clients expect something
 * other than what the spec documents. `UNDERSTUDY_DIALECT=upstream` switches to the real
 * behaviour; the spec dialect keeps the spec's. This is the one list; the README repeats it.
 */
export interface WireBehaviours {
  /** Name of the run task relationship that lists its workspace attachments. */
  runTaskAttachmentsRelationship: 'tasks' | 'workspace-tasks';
  /** Whether an invitation must name at least one team. */
  invitationRequiresTeam: boolean;
  /** Whether creating a run task needs a `description` string (the real client sends null). */
  runTaskDescriptionRequired: boolean;
  /** Whether a workspace update without `assessments-enabled` resets it to false. */
  assessmentsResetOnUpdate: boolean;
  /** Whether customization settings come back with HTML characters entity-escaped. */
  customizationEscapesHtml: boolean;
  /** Whether admin settings carry the attributes real clients read that the spec does not list. */
  adminUpstreamAttributes: boolean;
  /** Whether enabling SAML needs `idp-cert` to be a PEM X.509 certificate (the real service stores any text). */
  samlIdpCertIsPem: boolean;
}

const SPEC: WireBehaviours = {
  runTaskAttachmentsRelationship: 'tasks',
  invitationRequiresTeam: true,
  runTaskDescriptionRequired: true,
  assessmentsResetOnUpdate: true,
  customizationEscapesHtml: true,
  adminUpstreamAttributes: false,
  samlIdpCertIsPem: true,
};

const UPSTREAM: WireBehaviours = {
  runTaskAttachmentsRelationship: 'workspace-tasks',
  invitationRequiresTeam: false,
  runTaskDescriptionRequired: false,
  assessmentsResetOnUpdate: false,
  customizationEscapesHtml: false,
  adminUpstreamAttributes: true,
  samlIdpCertIsPem: false,
};

/** The README's table of behaviour differences, kept next to the values it describes. */
export const BEHAVIOUR_DIFFERENCES: readonly { what: string; spec: string; upstream: string }[] = [
  { what: 'run task relationship to its attachments', spec: '`tasks`', upstream: '`workspace-tasks`' },
  { what: 'invitation without teams', spec: '422', upstream: 'accepted' },
  { what: 'run task `description` on create', spec: 'required string', upstream: 'optional, null accepted' },
  {
    what: 'workspace update without `assessments-enabled` (hosted edition; self-hosted has no such attribute)',
    spec: 'resets it to false',
    upstream: 'keeps the previous value',
  },
  { what: 'customization settings strings in responses', spec: 'HTML characters entity-escaped', upstream: 'verbatim (as stored)' },
  {
    what: 'extra admin settings attributes (general timeouts and ceilings, SAML signing options, cost-estimation `*-enabled`)',
    spec: 'accepted, not returned',
    upstream: 'accepted and returned',
  },
  {
    what: 'SAML `idp-cert` when `enabled` is true',
    spec: 'must be a PEM X.509 certificate',
    upstream: 'any text (the client sends `testCert`)',
  },
];

export function wireBehaviours(dialect: Dialect): WireBehaviours {
  return dialect === 'upstream' ? UPSTREAM : SPEC;
}
