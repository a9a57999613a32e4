import type { TemplateLookup } from '../acl/template.js';
import type { IdentityState } from './state.js';

/** `<key>` of `metadata.<key>` in a template name, or undefined for another name. */
const metadataKey = (rest: string): string | undefined => (rest.startsWith('metadata.') ? rest.slice('metadata.'.length) : undefined);

/**
 * The values of identity templates for one entity: `identity.entity.id|name|metadata.<key>`,
 * `identity.entity.aliases.<mount accessor>.id|name|metadata.<key>|custom_metadata.<key>`, and
 * `identity.groups.ids.<id>.name|metadata.<key>` / `identity.groups.names.<name>.id|metadata.<key>`
 * for the groups the entity is in (directly or through member groups). Anything else is undefined.
 */
export function identityTemplateLookup(state: IdentityState, entityId: string): TemplateLookup {
  const entity = state.entityOrMerged(entityId);
  const groups = entity ? state.groupsOf(entity.id) : undefined;
  const memberOf = new Set([...(groups?.direct ?? []), ...(groups?.inherited ?? [])]);
  return (name) => {
    if (!entity) return undefined;
    if (name === 'identity.entity.id') return entity.id;
    if (name === 'identity.entity.name') return entity.name;
    if (name.startsWith('identity.entity.metadata.')) return entity.metadata?.[name.slice('identity.entity.metadata.'.length)];
    if (name.startsWith('identity.entity.aliases.')) {
      const rest = name.slice('identity.entity.aliases.'.length);
      // The accessor is one segment (`auth_userpass_1a2b3c4d`); what follows names the field.
      const dot = rest.indexOf('.');
      if (dot < 0) return undefined;
      const alias = state.aliasesOf(entity.id).find((candidate) => candidate.mountAccessor === rest.slice(0, dot));
      const field = rest.slice(dot + 1);
      if (!alias) return undefined;
      if (field === 'id') return alias.id;
      if (field === 'name') return alias.name;
      if (field.startsWith('custom_metadata.')) return alias.customMetadata?.[field.slice('custom_metadata.'.length)];
      const key = metadataKey(field);
      return key === undefined ? undefined : alias.metadata?.[key];
    }
    for (const [prefix, byId] of [
      ['identity.groups.ids.', true],
      ['identity.groups.names.', false],
    ] as const) {
      if (!name.startsWith(prefix)) continue;
      const rest = name.slice(prefix.length);
      const field = byId ? /\.(name|metadata\..+)$/.exec(rest) : /\.(id|metadata\..+)$/.exec(rest);
      if (!field) return undefined;
      const ref = rest.slice(0, field.index);
      const group = byId ? state.group(ref) : state.groupNamed(ref);
      if (!group || !memberOf.has(group.id)) return undefined;
      const wanted = field[1] as string;
      if (wanted === 'name') return group.name;
      if (wanted === 'id') return group.id;
      return group.metadata?.[wanted.slice('metadata.'.length)];
    }
    return undefined;
  };
}
