/**
 * The six administrator settings documents as tables of fields: name, kind, default and the rules
 * a single attribute carries on its own. Rules that join several attributes (`enabled` needing the
 * others) live in `rules.ts`. Names are the spec's spelling; `core/dialect.ts` spells them for
 * the upstream dialect.
 */
export type SettingsName = 'general' | 'cost-estimation' | 'saml' | 'smtp' | 'sms' | 'customization';

export const SETTINGS_NAMES: readonly SettingsName[] = ['general', 'cost-estimation', 'saml', 'smtp', 'sms', 'customization'];

interface FieldCommon {
  name: string;
  /** Accepted always, returned only in the upstream dialect (real clients read it; the spec does not list it). */
  upstreamOnly?: boolean;
  /** Accepted on update, stored, never returned (passwords, tokens). */
  writeOnly?: boolean;
  /** Returned, never accepted (computed or moved by the service). */
  readOnly?: boolean;
  /** Accepted on update, used once, never stored (the SMTP test address). */
  transient?: boolean;
}

export type Field = FieldCommon &
  (
    | { kind: 'boolean'; default: boolean }
    | { kind: 'integer'; default: number | null; minimum?: number; maximum?: number }
    | { kind: 'string'; default: string | null; oneOf?: readonly string[]; duration?: boolean }
  );

const bool = (name: string, value: boolean, extra: FieldCommon | object = {}): Field => ({
  name,
  kind: 'boolean',
  default: value,
  ...extra,
});
const str = (name: string, value: string | null = '', extra: Partial<Extract<Field, { kind: 'string' }>> = {}): Field => ({
  name,
  kind: 'string',
  default: value,
  ...extra,
});
const upstream = { upstreamOnly: true };

export const SUPPORT_EMAIL_DEFAULT = 'support@hashicorp.com';

export const FIELDS: Record<SettingsName, readonly Field[]> = {
  general: [
    bool('allow-speculative-plans-on-pull-requests-from-forks', false),
    { name: 'api-rate-limit', kind: 'integer', default: 30, minimum: 30 },
    bool('api-rate-limiting-enabled', true),
    bool('default-remote-state-access', true),
    bool('limit-user-organization-creation', true),
    bool('send-passing-statuses-for-untriggered-speculative-plans', false),
    bool('require-two-factor-for-admins', false, upstream),
    bool('fair-run-queuing-enabled', false, upstream),
    bool('limit-organizations-per-user', false, upstream),
    { name: 'default-organizations-per-user-ceiling', kind: 'integer', default: 10, minimum: 1, ...upstream },
    bool('limit-workspaces-per-organization', false, upstream),
    { name: 'default-workspaces-per-organization-ceiling', kind: 'integer', default: 10, minimum: 1, ...upstream },
    str('terraform-build-worker-apply-timeout', '24h', { duration: true, ...upstream }),
    str('terraform-build-worker-plan-timeout', '2h', { duration: true, ...upstream }),
    str('apply-timeout', '24h', { duration: true, ...upstream }),
    str('plan-timeout', '2h', { duration: true, ...upstream }),
  ],
  'cost-estimation': [
    bool('enabled', false),
    str('cloud-a-access-key-id'),
    // The secret halves of each credential set are kept but never shown, as the real settings hide them.
    str('cloud-a-secret-key', null, { writeOnly: true }),
    str('cloud-b-credentials', null, { writeOnly: true }),
    str('cloud-c-client-id'),
    str('cloud-c-client-secret', null, { writeOnly: true }),
    str('cloud-c-subscription-id'),
    str('cloud-c-tenant-id'),
    bool('aws-enabled', false, upstream),
    bool('aws-instance-profile-enabled', false, upstream),
    bool('gcp-enabled', false, upstream),
    bool('azure-enabled', false, upstream),
  ],
  saml: [
    bool('enabled', false),
    bool('debug', false),
    str('idp-cert'),
    str('old-idp-cert', null, { readOnly: true }),
    str('slo-endpoint-url'),
    str('sso-endpoint-url'),
    str('attr-username', 'Username'),
    str('attr-groups', 'MemberOf'),
    str('attr-site-admin', 'SiteAdmin'),
    str('site-admin-role', 'site-admins'),
    { name: 'sso-api-token-session-timeout', kind: 'integer', default: 1209600, minimum: 1 },
    bool('authn-requests-signed', false, upstream),
    bool('want-assertions-signed', false, upstream),
    bool('team-management-enabled', false, upstream),
    str('certificate', '', upstream),
    str('private-key', '', { writeOnly: true, ...upstream }),
    str('signature-signing-method', 'SHA256', { oneOf: ['SHA1', 'SHA256'], ...upstream }),
    str('signature-digest-method', 'SHA256', { oneOf: ['SHA1', 'SHA256'], ...upstream }),
    str('provider-type', 'unknown', { oneOf: ['okta', 'entra', 'saml', 'unknown'], ...upstream }),
  ],
  smtp: [
    bool('enabled', false),
    str('host'),
    { name: 'port', kind: 'integer', default: null, minimum: 1, maximum: 65535 },
    str('sender'),
    str('auth', 'none', { oneOf: ['none', 'plain', 'login'] }),
    str('username'),
    str('password', '', { writeOnly: true }),
    str('test-email-address', null, { transient: true }),
  ],
  sms: [bool('enabled', false), str('account-sid'), str('auth-token', '', { writeOnly: true }), str('from-number')],
  customization: [str('support-email-address', SUPPORT_EMAIL_DEFAULT), str('login-help'), str('footer'), str('error'), str('new-user')],
};

/** Every stored attribute of `name` at its default. */
export function defaults(name: SettingsName): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of FIELDS[name]) if (!field.transient) out[field.name] = field.default;
  return out;
}
