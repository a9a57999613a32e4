import { unprocessable } from '../../core/errors.js';
import type { NotificationDestination } from '../../store/tables.js';
import { Attributes, relationshipIds } from '../jsonapi/body.js';
import { Attr, resourceBody } from '../jsonapi/schemas.js';
import { DESTINATIONS, triggersFor, type SubscribableKind } from './triggers.js';

/** Both spellings of the type: the documentation's samples write it singular. */
export const NOTIFICATION_TYPES = ['notification-configurations', 'notification-configuration'] as const;

/** The create and update body (update sends the type plus what changes, never `subscribable`). */
export const NOTIFICATION_BODY = resourceBody(NOTIFICATION_TYPES, {
  attributes: {
    'destination-type': Attr.string('generic, email, slack or microsoft-teams; fixed once created'),
    enabled: Attr.boolean('default false; true verifies the destination first'),
    name: Attr.string(),
    token: Attr.string('HMAC key of the signature header (generic only); never returned'),
    triggers: Attr.strings('run:*, assessment:*, workspace:* (workspaces, projects) or change_request:created (teams)'),
    url: Attr.string('required for generic, slack and microsoft-teams'),
    'email-addresses': Attr.strings('email only'),
  },
  relationships: ['subscribable', 'users'],
});

const POINTER = '/data/attributes';
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export interface NotificationInput {
  name?: string;
  destinationType?: NotificationDestination;
  enabled?: boolean;
  /** null or "" removes the key. */
  token?: string | null;
  triggers?: string[];
  url?: string | null;
  emailAddresses?: string[];
  emailUserIds?: string[];
}

function httpUrl(value: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw unprocessable('url must be an http or https URL', `${POINTER}/url`);
  }
  return value;
}

function triggerList(attributes: Attributes, kind: SubscribableKind): string[] | undefined {
  const triggers = attributes.stringArray('triggers');
  if (triggers === undefined) return undefined;
  const allowed = triggersFor(kind);
  triggers.forEach((trigger, index) => {
    if (!allowed.includes(trigger)) {
      throw unprocessable(`triggers must be among ${allowed.join(', ')}; "${trigger}" is not`, `${POINTER}/triggers/${index}`);
    }
  });
  return [...new Set(triggers)];
}

/**
 * Reads a notification configuration body attribute by attribute (each bad value a 422 naming
 * it). The rules joining attributes (url per destination, token for generic only) are checked on
 * the merged configuration by the service, so an update is judged by what it leaves.
 */
export function readNotificationInput(
  raw: Record<string, unknown>,
  relationships: Record<string, unknown>,
  kind: SubscribableKind,
  creating: boolean,
): NotificationInput {
  const attributes = new Attributes(raw);
  const input: NotificationInput = {};
  const name = attributes.string('name', { required: creating, maxLength: 255 }) ?? undefined;
  if (name !== undefined) {
    if (name.trim() === '') throw unprocessable("name can't be blank", `${POINTER}/name`);
    input.name = name;
  }
  const destination = attributes.string('destination-type', { required: creating }) ?? undefined;
  if (destination !== undefined) {
    if (!DESTINATIONS.includes(destination as NotificationDestination)) {
      throw unprocessable(`destination-type must be one of ${DESTINATIONS.join(', ')}`, `${POINTER}/destination-type`);
    }
    input.destinationType = destination as NotificationDestination;
  }
  const enabled = attributes.boolean('enabled', { acceptStrings: true });
  if (enabled !== undefined) input.enabled = enabled;
  const token = attributes.string('token', { nullable: true });
  if (token !== undefined) input.token = token === '' ? null : token;
  const triggers = triggerList(attributes, kind);
  if (triggers !== undefined) input.triggers = triggers;
  const url = attributes.string('url', { nullable: true });
  if (url !== undefined) input.url = url === null || url === '' ? null : httpUrl(url);
  const addresses = attributes.stringArray('email-addresses');
  if (addresses !== undefined) {
    addresses.forEach((address, index) => {
      if (!EMAIL.test(address)) throw unprocessable(`"${address}" is not an email address`, `${POINTER}/email-addresses/${index}`);
    });
    input.emailAddresses = [...new Set(addresses)];
  }
  const users = relationshipIds(relationships, 'users', 'users');
  if (users !== undefined) input.emailUserIds = [...new Set(users)];
  return input;
}
