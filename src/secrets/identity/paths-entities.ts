import { badRequest, notFound } from '../../core/errors.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../framework/types.js';
import { deleteEntities, mergeEntities, upsertEntity, writeEntityAlias, type EntityInput } from './entities.js';
import type { IdentityStore } from './identity-store.js';
import { listed, listedAliases } from './listing.js';
import type { EntityRecord, StringMap } from './records.js';
import { aliasWire, entityWire } from './wire.js';

const ENTITY_FIELDS: Record<string, FieldSpec> = {
  id: { type: 'string', description: 'ID of the entity; with it, the write updates that entity.' },
  name: { type: 'string', description: 'Name of the entity (one is generated when omitted).' },
  metadata: { type: 'kvPairs', description: 'String metadata of the entity.' },
  policies: { type: 'commaStringSlice', description: 'Policies tokens of the entity hold.' },
  disabled: { type: 'bool', description: 'A disabled entity may not log in or use its tokens.' },
};

const ALIAS_FIELDS: Record<string, FieldSpec> = {
  id: { type: 'string', description: 'ID of the alias; with it, the write updates that alias.' },
  name: { type: 'string', description: "The caller's name at the auth method (the username, the role id…)." },
  mount_accessor: { type: 'string', description: 'Accessor of the auth method the alias belongs to.' },
  canonical_id: { type: 'string', description: 'ID of the entity the alias belongs to.' },
  entity_id: { type: 'string', description: 'Older name of canonical_id.' },
  custom_metadata: { type: 'kvPairs', description: 'String metadata set by hand.' },
};

function entityInput(request: HandlerRequest): EntityInput {
  const { fields } = request;
  const optional = <T>(name: string) => (fields.has(name) ? fields.get<T>(name) : undefined);
  return {
    id: optional<string>('id') || undefined,
    name: optional<string>('name'),
    metadata: optional<StringMap>('metadata'),
    policies: optional<string[]>('policies'),
    disabled: optional<boolean>('disabled'),
  };
}

/** A new entity answers its id, name and aliases; an updated one answers nothing (204). */
function written(result: { entity: EntityRecord; created: boolean }, identity: IdentityStore): LogicalResponse | undefined {
  if (!result.created) return undefined;
  const aliases = identity
    .state()
    .aliasesOf(result.entity.id)
    .map((alias) => alias.id);
  return { data: { id: result.entity.id, name: result.entity.name, aliases: aliases.length > 0 ? aliases : null } };
}

/** The real service's text for an id that names no entity. */
const notFoundFromId = () => badRequest('entity not found from id');

function entityPaths(identity: IdentityStore): PathSpec[] {
  const byId = (request: HandlerRequest) => identity.state().entity(request.params['id'] ?? '');
  const byName = (request: HandlerRequest) => identity.state().entityNamed(request.params['name'] ?? '');
  const read = (entity: EntityRecord | undefined): LogicalResponse => {
    if (!entity) throw notFound();
    return { data: entityWire(identity, entity) };
  };
  const remove = (entity: EntityRecord | undefined) => {
    if (entity) deleteEntities(identity, [entity.id]);
    return undefined;
  };
  return [
    {
      pattern: 'entity',
      summary: 'Create an entity, or update the one an id or name names.',
      fields: ENTITY_FIELDS,
      operations: {
        update: (request) => {
          const input = entityInput(request);
          const current = input.id ? identity.state().entity(input.id) : undefined;
          if (input.id && !current) throw notFoundFromId();
          return written(upsertEntity(identity, current, input), identity);
        },
      },
    },
    {
      pattern: 'entity/id',
      summary: 'IDs of the entities.',
      operations: {
        list: () => {
          const entities = [...identity.state().entities.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
          return listed(
            entities.map((entity) => entity.id),
            Object.fromEntries(entities.map((entity) => [entity.id, { name: entity.name }])),
          );
        },
      },
    },
    {
      pattern: 'entity/id/:id',
      summary: 'Read, update or delete an entity by its id.',
      fields: ENTITY_FIELDS,
      operations: {
        read: (request) => read(byId(request)),
        update: (request) => {
          const current = byId(request);
          if (!current) throw notFoundFromId();
          return written(upsertEntity(identity, current, { ...entityInput(request), id: current.id }), identity);
        },
        delete: (request) => remove(byId(request)),
      },
    },
    {
      pattern: 'entity/name',
      summary: 'Names of the entities.',
      operations: {
        list: () => {
          const names = [...identity.state().entities.values()].map((entity) => entity.name).sort();
          return listed(names, {});
        },
      },
    },
    {
      pattern: 'entity/name/:name',
      summary: 'Read, create or update, or delete an entity by its name.',
      fields: { ...ENTITY_FIELDS, name: { type: 'string', description: 'Name of the entity.' } },
      operations: {
        read: (request) => read(byName(request)),
        update: (request) => written(upsertEntity(identity, byName(request), { ...entityInput(request), id: undefined }), identity),
        delete: (request) => remove(byName(request)),
      },
    },
    {
      pattern: 'entity/batch-delete',
      summary: 'Delete several entities by id.',
      fields: { entity_ids: { type: 'commaStringSlice', description: 'IDs of the entities to delete.' } },
      operations: {
        update: (request) => {
          deleteEntities(identity, request.fields.get<string[] | undefined>('entity_ids') ?? []);
          return undefined;
        },
      },
    },
    {
      pattern: 'entity/merge',
      summary: 'Merge entities into one.',
      fields: {
        from_entity_ids: { type: 'commaStringSlice', description: 'Entities to merge (they are deleted).' },
        to_entity_id: { type: 'string', description: 'Entity to merge into.' },
        force: { type: 'bool', description: 'Accepted; it concerns MFA secrets, which understudy does not model.' },
        conflicting_alias_ids_to_keep: {
          type: 'commaStringSlice',
          description: 'Where both entities have an alias on one mount, the alias ids to keep.',
        },
      },
      operations: {
        update: (request) => {
          const { fields } = request;
          mergeEntities(identity, {
            toEntityId: fields.get<string | undefined>('to_entity_id') ?? '',
            fromEntityIds: fields.get<string[] | undefined>('from_entity_ids') ?? [],
            conflictingAliasIdsToKeep: fields.get<string[] | undefined>('conflicting_alias_ids_to_keep') ?? [],
          });
          return undefined;
        },
      },
    },
  ];
}

function aliasPaths(identity: IdentityStore): PathSpec[] {
  const write = (request: HandlerRequest): LogicalResponse | undefined => {
    const { fields } = request;
    const text = (name: string) => fields.get<string | undefined>(name) ?? '';
    const result = writeEntityAlias(identity, {
      id: request.params['id'] ?? text('id'),
      name: text('name'),
      mountAccessor: text('mount_accessor'),
      canonicalId: text('canonical_id') || text('entity_id'),
      customMetadata: fields.has('custom_metadata') ? fields.get<StringMap>('custom_metadata') : undefined,
    });
    return result ? { data: result } : undefined;
  };
  const byId = (request: HandlerRequest) => identity.state().aliases.get(request.params['id'] ?? '');
  return [
    { pattern: 'entity-alias', summary: 'Create or update an entity alias.', fields: ALIAS_FIELDS, operations: { update: write } },
    {
      pattern: 'entity-alias/id',
      summary: 'IDs of the entity aliases.',
      operations: {
        list: () => listedAliases(identity.state().aliases.values()),
      },
    },
    {
      pattern: 'entity-alias/id/:id',
      summary: 'Read, update or delete an entity alias.',
      fields: ALIAS_FIELDS,
      operations: {
        read: (request) => {
          const alias = byId(request);
          if (!alias) throw notFound();
          return { data: aliasWire(identity, alias) };
        },
        update: write,
        delete: (request) => {
          const alias = byId(request);
          if (alias) identity.write((writer) => writer.deleteAlias(alias.id));
          return undefined;
        },
      },
    },
  ];
}

export function entityAndAliasPaths(identity: IdentityStore): PathSpec[] {
  return [...entityPaths(identity), ...aliasPaths(identity)];
}
