import type { IdentityStore } from '../identity-store.js';

/** Claims the provider sets itself; a template may not name them. */
export const RESERVED_CLAIMS = ['iat', 'aud', 'exp', 'iss', 'sub', 'namespace'];

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/**
 * Renders a role template in JSON mode: each `{{name}}` becomes a JSON value, a string for the
 * single values policy templates know, an object for `identity.entity.metadata`, a list for the
 * entity's group names or ids. A name with no value renders as an empty string, so a missing
 * metadata key gives `""` rather than a broken document.
 */
export function renderJsonTemplate(template: string, identity: IdentityStore, entityId: string | undefined): string {
  const state = identity.state();
  const entity = entityId === undefined ? undefined : state.entityOrMerged(entityId);
  const lookup = entity ? identity.templateLookup(entity.id) : () => undefined;
  const groups = entity ? state.groupsOf(entity.id) : { direct: [], inherited: [] };
  const groupIds = [...groups.direct, ...groups.inherited];
  return template.replace(PLACEHOLDER, (_whole, raw: string) => {
    const name = raw.trim();
    if (name === 'identity.entity.metadata') return JSON.stringify(entity?.metadata ?? {});
    if (name === 'identity.entity.groups.ids') return JSON.stringify(groupIds);
    if (name === 'identity.entity.groups.names') return JSON.stringify(groupIds.map((id) => state.group(id)?.name ?? ''));
    return JSON.stringify(lookup(name) ?? '');
  });
}

/** Parses a rendered template; the text of the error when it is not a JSON object. */
export function parseRendered(rendered: string): Record<string, unknown> | string {
  try {
    const parsed: unknown = JSON.parse(rendered);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'json: cannot unmarshal into Go value of type map';
    return parsed as Record<string, unknown>;
  } catch (error) {
    return (error as Error).message;
  }
}
