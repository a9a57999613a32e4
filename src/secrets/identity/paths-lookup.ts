import { badRequest } from '../../core/errors.js';
import type { FieldSpec, HandlerRequest, PathSpec } from '../framework/types.js';
import type { IdentityStore } from './identity-store.js';
import { entityWire, groupWire } from './wire.js';

const LOOKUP_FIELDS: Record<string, FieldSpec> = {
  id: { type: 'string', description: 'ID to look up.' },
  name: { type: 'string', description: 'Name to look up.' },
  alias_id: { type: 'string', description: 'ID of one of its aliases.' },
  alias_name: { type: 'string', description: 'Name of one of its aliases (with alias_mount_accessor).' },
  alias_mount_accessor: { type: 'string', description: 'Accessor of the mount alias_name is on.' },
};

/** Which one criterion the request gives; the real service's texts when none or a conflicting set is given. */
function criterion(request: HandlerRequest): { kind: 'id' | 'name' | 'alias_id' | 'alias'; value: string; accessor: string } {
  const text = (name: string) => request.fields.get<string | undefined>(name) ?? '';
  const given = ['id', 'name', 'alias_id', 'alias_name', 'alias_mount_accessor'].filter((name) => text(name) !== '');
  if (given.length === 0) throw badRequest('query parameter not supplied');
  const pair = given.length === 2 && given.includes('alias_name') && given.includes('alias_mount_accessor');
  if (given.length !== 1 && !pair) throw badRequest('query parameter conflict; please supply distinct set of query parameters');
  if (pair) return { kind: 'alias', value: text('alias_name'), accessor: text('alias_mount_accessor') };
  const only = given[0] as string;
  if (only === 'alias_name') throw badRequest("missing 'alias_mount_accessor' field");
  if (only === 'alias_mount_accessor') throw badRequest("missing 'alias_name' field");
  return { kind: only as 'id' | 'name' | 'alias_id', value: text(only), accessor: '' };
}

/** `identity/lookup/entity` and `…/group`: the record's read data, or 204 when nothing matches. */
export function lookupPaths(identity: IdentityStore): PathSpec[] {
  return [
    {
      pattern: 'lookup/entity',
      summary: 'Find an entity by id, name, alias id, or alias name and mount accessor.',
      fields: LOOKUP_FIELDS,
      operations: {
        update: (request) => {
          const state = identity.state();
          const { kind, value, accessor } = criterion(request);
          const alias = kind === 'alias_id' ? state.aliases.get(value) : kind === 'alias' ? state.aliasByName(accessor, value) : undefined;
          const entity =
            kind === 'id' ? state.entity(value) : kind === 'name' ? state.entityNamed(value) : alias && state.entity(alias.canonicalId);
          return entity ? { data: entityWire(identity, entity) } : undefined;
        },
      },
    },
    {
      pattern: 'lookup/group',
      summary: 'Find a group by id, name, alias id, or alias name and mount accessor.',
      fields: LOOKUP_FIELDS,
      operations: {
        update: (request) => {
          const state = identity.state();
          const { kind, value, accessor } = criterion(request);
          const alias =
            kind === 'alias_id' ? state.groupAliases.get(value) : kind === 'alias' ? state.groupAliasByName(accessor, value) : undefined;
          const group =
            kind === 'id' ? state.group(value) : kind === 'name' ? state.groupNamed(value) : alias && state.group(alias.canonicalId);
          return group ? { data: groupWire(identity, group) } : undefined;
        },
      },
    },
  ];
}
