/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, NoBody, noContent, ok, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `general-settings` resource. */
export const GENERAL_SETTINGS = resourceSchema(
  'general-settings',
  {
    'allow-speculative-plans-on-pull-requests-from-forks': A.boolean(),
    'api-rate-limit': A.integer(),
    'api-rate-limiting-enabled': A.boolean(),
    'default-remote-state-access': A.boolean(),
    'limit-user-organization-creation': A.boolean(),
    'send-passing-statuses-for-untriggered-speculative-plans': A.boolean(),
  },
  { links: 'never' },
);

/** The `cost-estimation-settings` resource. */
export const COST_ESTIMATION_SETTINGS = resourceSchema(
  'cost-estimation-settings',
  {
    enabled: A.boolean(),
    'cloud-a-access-key-id': A.string(),
    'cloud-c-client-id': A.string(),
    'cloud-c-subscription-id': A.string(),
    'cloud-c-tenant-id': A.string(),
  },
  { links: 'never' },
);

/** The `saml-settings` resource. */
export const SAML_SETTINGS = resourceSchema(
  'saml-settings',
  {
    enabled: A.boolean(),
    debug: A.boolean(),
    'idp-cert': A.string(),
    'old-idp-cert': A.nullable(A.string()),
    'slo-endpoint-url': A.string(),
    'sso-endpoint-url': A.string(),
    'attr-username': A.string(),
    'attr-groups': A.string(),
    'attr-site-admin': A.string(),
    'site-admin-role': A.string(),
    'sso-api-token-session-timeout': A.integer(),
    'acs-consumer-url': A.string(),
    'metadata-url': A.string(),
  },
  { links: 'never' },
);

/** The `smtp-settings` resource. */
export const SMTP_SETTINGS = resourceSchema(
  'smtp-settings',
  {
    enabled: A.boolean(),
    host: A.string(),
    port: A.nullable(A.integer()),
    sender: A.string(),
    auth: A.string(),
    username: A.string(),
  },
  { links: 'never' },
);

/** The `sms-settings` resource. */
export const SMS_SETTINGS = resourceSchema(
  'sms-settings',
  {
    enabled: A.boolean(),
    'account-sid': A.string(),
    'from-number': A.string(),
  },
  { links: 'never' },
);

/** The `customization-settings` resource. */
export const CUSTOMIZATION_SETTINGS = resourceSchema(
  'customization-settings',
  {
    'support-email-address': A.string(),
    'login-help': A.string(),
    footer: A.string(),
    error: A.string(),
    'new-user': A.string(),
  },
  { links: 'never' },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const ADMIN_SETTINGS_RESPONSES: ResponseTable = {
  'GET /admin/general-settings': ok(single(GENERAL_SETTINGS)),
  'PATCH /admin/general-settings': ok(single(GENERAL_SETTINGS)),
  'GET /admin/cost-estimation-settings': ok(single(COST_ESTIMATION_SETTINGS)),
  'PATCH /admin/cost-estimation-settings': ok(single(COST_ESTIMATION_SETTINGS)),
  'GET /admin/saml-settings': ok(single(SAML_SETTINGS)),
  'PATCH /admin/saml-settings': ok(single(SAML_SETTINGS)),
  'GET /admin/smtp-settings': ok(single(SMTP_SETTINGS)),
  'PATCH /admin/smtp-settings': ok(single(SMTP_SETTINGS)),
  'GET /admin/sms-settings': ok(single(SMS_SETTINGS)),
  'PATCH /admin/sms-settings': ok(single(SMS_SETTINGS)),
  'GET /admin/twilio-settings': ok(single(SMS_SETTINGS)),
  'PATCH /admin/twilio-settings': ok(single(SMS_SETTINGS)),
  'GET /admin/customization-settings': ok(single(CUSTOMIZATION_SETTINGS)),
  'PATCH /admin/customization-settings': ok(single(CUSTOMIZATION_SETTINGS)),
  'POST /admin/sms-settings/verify': ok(NoBody),
  'PATCH /admin/sms-settings/verify': ok(NoBody),
  'POST /admin/twilio-settings/verify': ok(NoBody),
  'PATCH /admin/twilio-settings/verify': ok(NoBody),
  'POST /admin/saml-settings/actions/revoke-old-certificate': ok(single(SAML_SETTINGS)),
  'POST /admin/oidc-settings/actions/rotate-key': noContent,
  'POST /admin/oidc-settings/actions/trim-key': noContent,
};
