/** Response schemas of the administrator settings (see ../jsonapi/responses.ts), from the settings' field tables. */
import type { TProperties } from '@fastify/type-provider-typebox';
import { A, noContent, NoBody, ok, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';
import { FIELDS, type Field, type SettingsName } from './fields.js';

/** A field as returned: a null default stays null until set; upstream-only fields appear in that dialect only. */
function fieldSchema(field: Field) {
  const base =
    field.kind === 'boolean' ? A.boolean() : field.kind === 'integer' ? A.integer() : field.oneOf ? A.oneOf(...field.oneOf) : A.string();
  const typed = field.default === null ? A.nullable(base) : base;
  return field.upstreamOnly ? A.optional(typed) : typed;
}

/** A settings document: every field it returns (not the write-only or transient ones), and SAML's two links. */
function settingsSchema(name: SettingsName) {
  const returned = FIELDS[name].filter((field) => !field.writeOnly && !field.transient);
  const computed: TProperties = name === 'saml' ? { 'acs-consumer-url': A.string(), 'metadata-url': A.string() } : {};
  return resourceSchema(
    `${name}-settings`,
    { ...Object.fromEntries(returned.map((field) => [field.name, fieldSchema(field)])), ...computed },
    { links: 'never' },
  );
}

export const GENERAL_SETTINGS = settingsSchema('general');
export const COST_ESTIMATION_SETTINGS = settingsSchema('cost-estimation');
export const SAML_SETTINGS = settingsSchema('saml');
export const SMTP_SETTINGS = settingsSchema('smtp');
export const SMS_SETTINGS = settingsSchema('sms');
export const CUSTOMIZATION_SETTINGS = settingsSchema('customization');

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
