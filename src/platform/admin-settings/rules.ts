import { X509Certificate } from 'node:crypto';
import { DurationError, parseDurationMs } from '../../core/duration.js';
import { unprocessable } from '../../core/errors.js';
import type { Dialect } from '../../core/dialect.js';
import { wireBehaviours } from '../dialect-behaviours.js';
import { Attributes } from '../jsonapi/body.js';
import { FIELDS, type Field, type SettingsName } from './fields.js';

const pointer = (name: string) => `/data/attributes/${name}`;

export interface ParsedUpdate {
  /** Stored attributes the request sets (absent and `null` mean unchanged). */
  changes: Record<string, unknown>;
  /** Attributes used once and never stored (`test-email-address`). */
  transient: Record<string, string>;
}

function readField(attributes: Attributes, field: Field): unknown {
  switch (field.kind) {
    case 'boolean':
      return attributes.boolean(field.name);
    case 'integer': {
      const value = attributes.integer(field.name, field.minimum === undefined ? {} : { minimum: field.minimum });
      if (value !== undefined && field.maximum !== undefined && value > field.maximum) {
        throw unprocessable(`${field.name} must be at most ${field.maximum}`, pointer(field.name));
      }
      return value;
    }
    case 'string': {
      const value = attributes.string(field.name);
      if (value === undefined || value === null) return undefined;
      if (field.oneOf && !field.oneOf.includes(value)) {
        throw unprocessable(`${field.name} must be one of ${field.oneOf.join(', ')}`, pointer(field.name));
      }
      if (field.duration) {
        try {
          parseDurationMs(value);
        } catch (error) {
          if (error instanceof DurationError)
            throw unprocessable(`${field.name} must be a duration such as "2h" or "30m"`, pointer(field.name));
          throw error;
        }
      }
      return value;
    }
  }
}

/**
 * The attributes of a PATCH body (already in spec spelling), each checked on its own. Unknown
 * and read-only attributes are ignored, as the real service ignores what it does not take.
 */
export function parseUpdate(name: SettingsName, raw: Record<string, unknown>): ParsedUpdate {
  const attributes = new Attributes(raw);
  const changes: Record<string, unknown> = {};
  const transient: Record<string, string> = {};
  for (const field of FIELDS[name]) {
    if (field.readOnly) continue;
    const value = readField(attributes, field);
    if (value === undefined) continue;
    if (field.transient) transient[field.name] = value as string;
    else changes[field.name] = value;
  }
  return { changes, transient };
}

const filled = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

function requireFilled(settings: Record<string, unknown>, names: readonly string[], why: string): void {
  for (const name of names) if (!filled(settings[name])) throw unprocessable(`${name} can't be blank ${why}`, pointer(name));
}

/** A PEM X.509 certificate that parses; anything else is a 422 on `name`. */
export function requireCertificate(value: unknown, name: string): void {
  const text = typeof value === 'string' ? value : '';
  let ok = text.includes('-----BEGIN CERTIFICATE-----');
  if (ok) {
    try {
      new X509Certificate(text);
    } catch {
      ok = false;
    }
  }
  if (!ok) throw unprocessable(`${name} must be a PEM-encoded X.509 certificate`, pointer(name));
}

function requireHttpsUrl(value: unknown, name: string): void {
  let ok: boolean;
  try {
    ok = typeof value === 'string' && new URL(value).protocol === 'https:';
  } catch {
    ok = false;
  }
  if (!ok) throw unprocessable(`${name} must be an https:// URL`, pointer(name));
}

/** A cloud-b key: a JSON object of a service account with its key and client address. */
function isServiceAccountKey(value: unknown): boolean {
  if (!filled(value)) return false;
  try {
    const key: unknown = JSON.parse(value);
    if (typeof key !== 'object' || key === null || Array.isArray(key)) return false;
    const record = key as Record<string, unknown>;
    return record['type'] === 'service_account' && filled(record['private_key']) && filled(record['client_email']);
  } catch {
    return false;
  }
}

const CLOUD_C = ['cloud-c-client-id', 'cloud-c-client-secret', 'cloud-c-subscription-id', 'cloud-c-tenant-id'];

/** The rules that join attributes, checked on the merged document (stored values plus the change). */
export function checkSettings(name: SettingsName, settings: Record<string, unknown>, dialect: Dialect = 'spec'): void {
  switch (name) {
    case 'cost-estimation': {
      if (settings['enabled'] !== true) return;
      const cloudA = filled(settings['cloud-a-access-key-id']) && filled(settings['cloud-a-secret-key']);
      const cloudB = isServiceAccountKey(settings['cloud-b-credentials']);
      const cloudC = CLOUD_C.every((key) => filled(settings[key]));
      if (!cloudA && !cloudB && !cloudC) {
        throw unprocessable(
          'enabling cost estimation needs one complete credential set: both cloud-a keys, ' +
            'cloud-b credentials that are a JSON service-account key, or all four cloud-c values',
          pointer('enabled'),
        );
      }
      return;
    }
    case 'saml': {
      // Nothing checks the certificates while SAML is off; the service provider's own
      // `certificate` is never checked (the spec does not describe it, and the client sends any text).
      if (settings['enabled'] !== true) return;
      if (wireBehaviours(dialect).samlIdpCertIsPem) requireCertificate(settings['idp-cert'], 'idp-cert');
      else requireFilled(settings, ['idp-cert'], 'when SAML is enabled');
      requireHttpsUrl(settings['sso-endpoint-url'], 'sso-endpoint-url');
      requireHttpsUrl(settings['slo-endpoint-url'], 'slo-endpoint-url');
      requireFilled(settings, ['attr-username', 'attr-groups', 'attr-site-admin', 'site-admin-role'], 'when SAML is enabled');
      return;
    }
    case 'smtp': {
      if (settings['enabled'] !== true) return;
      requireFilled(settings, ['host', 'sender'], 'when mail is enabled');
      if (typeof settings['port'] !== 'number') throw unprocessable("port can't be blank when mail is enabled", pointer('port'));
      if (!/^[^@\s]+@[^@\s]+$/.test(settings['sender'] as string))
        throw unprocessable('sender must be an email address', pointer('sender'));
      if (settings['auth'] !== 'none') requireFilled(settings, ['username', 'password'], `when auth is ${String(settings['auth'])}`);
      return;
    }
    case 'sms':
      if (settings['enabled'] === true) requireFilled(settings, ['account-sid', 'auth-token', 'from-number'], 'when SMS is enabled');
      return;
    default:
      return;
  }
}
