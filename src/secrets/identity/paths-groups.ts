import { notFound } from '../../core/errors.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../framework/types.js';
import { deleteGroup, upsertGroup, writeGroupAlias, type GroupInput } from './groups.js';
import type { IdentityStore } from './identity-store.js';
import { listed, listedAliases } from './listing.js';
import type { GroupRecord, StringMap } from './records.js';
import { groupAliasWire, groupWire } from './wire.js';

const GROUP_FIELDS: Record<string, FieldSpec> = {
  id: { type: 'string', description: 'ID of the group; with it, the write updates that group.' },
  name: { type: 'string', description: 'Name of the group (one is generated when omitted).' },
  type: { type: 'string', description: '`internal` (members set here) or `external` (members from an auth method).' },
  metadata: { type: 'kvPairs', description: 'String metadata of the group.' },
  policies: { type: 'commaStringSlice', description: "Policies the group's members hold." },
  member_entity_ids: { type: 'commaStringSlice', description: 'Entities in the group (internal groups only).' },
  member_group_ids: { type: 'commaStringSlice', description: 'Groups whose members are also members of this one.' },
};

const GROUP_ALIAS_FIELDS: Record<string, FieldSpec> = {
  id: { type: 'string', description: 'ID of the group alias; with it, the write updates that alias.' },
  name: { type: 'string', description: "The group's name at the auth method." },
  mount_accessor: { type: 'string', description: 'Accessor of the auth method.' },
  canonical_id: { type: 'string', description: 'ID of the (external) group the alias belongs to.' },
};

function groupInput(request: HandlerRequest): GroupInput {
  const { fields } = request;
  const optional = <T>(name: string) => (fields.has(name) ? fields.get<T>(name) : undefined);
  return {
    id: optional<string>('id') || undefined,
    name: optional<string>('name'),
    type: optional<string>('type'),
    metadata: optional<StringMap>('metadata'),
    policies: optional<string[]>('policies'),
    memberEntityIds: optional<string[]>('member_entity_ids'),
    memberGroupIds: optional<string[]>('member_group_ids'),
  };
}

const written = (result: { group: GroupRecord; created: boolean }): LogicalResponse | undefined =>
  result.created ? { data: { id: result.group.id, name: result.group.name } } : undefined;

function groupPaths(identity: IdentityStore): PathSpec[] {
  const byId = (request: HandlerRequest) => identity.state().group(request.params['id'] ?? '');
  const byName = (request: HandlerRequest) => identity.state().groupNamed(request.params['name'] ?? '');
  const read = (group: GroupRecord | undefined): LogicalResponse => {
    if (!group) throw notFound();
    return { data: groupWire(identity, group) };
  };
  const sorted = () => [...identity.state().groups.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  return [
    {
      pattern: 'group',
      summary: 'Create a group, or update the one an id or name names.',
      fields: GROUP_FIELDS,
      operations: {
        update: (request) => {
          const input = groupInput(request);
          const current = input.id ? identity.state().group(input.id) : undefined;
          return written(upsertGroup(identity, current, input));
        },
      },
    },
    {
      pattern: 'group/id',
      summary: 'IDs of the groups.',
      operations: {
        list: () => {
          const groups = sorted();
          return listed(
            groups.map((group) => group.id),
            Object.fromEntries(
              groups.map((group) => [
                group.id,
                {
                  name: group.name,
                  num_member_entities: group.memberEntityIds.length,
                  num_parent_groups: identity.state().parentsOf(group.id).length,
                },
              ]),
            ),
          );
        },
      },
    },
    {
      pattern: 'group/id/:id',
      summary: 'Read, update or delete a group by its id.',
      fields: GROUP_FIELDS,
      operations: {
        read: (request) => read(byId(request)),
        update: (request) => {
          const current = byId(request);
          return written(upsertGroup(identity, current, { ...groupInput(request), id: request.params['id'] }));
        },
        delete: (request) => {
          deleteGroup(identity, byId(request));
          return undefined;
        },
      },
    },
    {
      pattern: 'group/name',
      summary: 'Names of the groups.',
      operations: {
        list: () =>
          listed(
            sorted()
              .map((group) => group.name)
              .sort(),
            {},
          ),
      },
    },
    {
      pattern: 'group/name/:name',
      summary: 'Read, create or update, or delete a group by its name.',
      fields: { ...GROUP_FIELDS, name: { type: 'string', description: 'Name of the group.' } },
      operations: {
        read: (request) => read(byName(request)),
        update: (request) => written(upsertGroup(identity, byName(request), { ...groupInput(request), id: undefined })),
        delete: (request) => {
          deleteGroup(identity, byName(request));
          return undefined;
        },
      },
    },
  ];
}

function groupAliasPaths(identity: IdentityStore): PathSpec[] {
  const write = (request: HandlerRequest): LogicalResponse => {
    const text = (name: string) => request.fields.get<string | undefined>(name) ?? '';
    return {
      data: writeGroupAlias(identity, {
        id: request.params['id'] ?? text('id'),
        name: text('name'),
        mountAccessor: text('mount_accessor'),
        canonicalId: text('canonical_id'),
      }),
    };
  };
  const byId = (request: HandlerRequest) => identity.state().groupAliases.get(request.params['id'] ?? '');
  return [
    {
      pattern: 'group-alias',
      summary: "Create or update an external group's alias.",
      fields: GROUP_ALIAS_FIELDS,
      operations: { update: write },
    },
    {
      pattern: 'group-alias/id',
      summary: 'IDs of the group aliases.',
      operations: {
        list: () => listedAliases(identity.state().groupAliases.values()),
      },
    },
    {
      pattern: 'group-alias/id/:id',
      summary: 'Read, update or delete a group alias.',
      fields: GROUP_ALIAS_FIELDS,
      operations: {
        read: (request) => {
          const alias = byId(request);
          if (!alias) throw notFound();
          return { data: groupAliasWire(identity, alias) };
        },
        update: write,
        delete: (request) => {
          const alias = byId(request);
          if (alias) identity.write((writer) => writer.deleteGroupAlias(alias.id));
          return undefined;
        },
      },
    },
  ];
}

export function groupAndAliasPaths(identity: IdentityStore): PathSpec[] {
  return [...groupPaths(identity), ...groupAliasPaths(identity)];
}
