import { spell, spellKeys, type Dialect } from '../../core/dialect.js';
import { wireBehaviours } from '../dialect-behaviours.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { FIELDS, type SettingsName } from './fields.js';

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => HTML_ENTITIES[char] as string);

export interface RenderContext {
  dialect: Dialect;
  /** `scheme://host[:port]` this server answers at, for SAML's computed addresses. */
  baseUrl: string;
}

/**
 * A settings row as its wire document: write-only and transient attributes dropped, extras real
 * clients read shown in the upstream dialect only, computed SAML addresses added, customization
 * strings escaped where the dialect says, names spelled for the dialect.
 */
export function settingsResource(name: SettingsName, settings: Record<string, unknown>, context: RenderContext): ResourceObject {
  const behaviours = wireBehaviours(context.dialect);
  const attributes: Record<string, unknown> = {};
  for (const field of FIELDS[name]) {
    if (field.writeOnly || field.transient) continue;
    if (field.upstreamOnly && !behaviours.adminUpstreamAttributes) continue;
    const value = settings[field.name];
    attributes[field.name] =
      name === 'customization' && behaviours.customizationEscapesHtml && typeof value === 'string' ? escapeHtml(value) : value;
  }
  if (name === 'saml') {
    attributes['acs-consumer-url'] = `${context.baseUrl}/users/saml/auth`;
    attributes['metadata-url'] = `${context.baseUrl}/users/saml/metadata`;
  }
  return {
    id: spell(name, context.dialect),
    type: spell(`${name}-settings`, context.dialect),
    attributes: spellKeys(attributes, context.dialect),
  };
}
