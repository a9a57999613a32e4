import { badRequest } from '../../core/errors.js';
import { queryList } from '../jsonapi/query.js';
import { readTaggedFilter } from '../tag-bindings/rules.js';
import type { WorkspaceFilter, WorkspaceSort } from './repo.js';

type Query = Record<string, unknown>;

/** A query parameter as one string; repeated parameters are joined as a comma list. */
function text(query: Query, name: string): string | undefined {
  const raw = query[name];
  const values = (Array.isArray(raw) ? raw : [raw]).filter((value): value is string => typeof value === 'string' && value !== '');
  return values.length === 0 ? undefined : values.join(',');
}

function list(query: Query, ...names: string[]): string[] | undefined {
  const values = names.flatMap((name) => queryList(query, name));
  return values.length === 0 ? undefined : values;
}

const SORTS: Record<string, WorkspaceSort> = {
  name: 'name',
  '-name': '-name',
  'created-at': 'created-at',
  '-created-at': '-created-at',
  'updated-at': 'updated-at',
  '-updated-at': '-updated-at',
  'current-run.created-at': 'current-run.created-at',
  '-current-run.created-at': '-current-run.created-at',
};

/** `search[…]` filters of the workspace list; unknown parameters are ignored, as real clients send some. */
export function readWorkspaceFilter(query: Query): WorkspaceFilter {
  const filter: WorkspaceFilter = {};
  const name = text(query, 'search[name]');
  if (name) filter.name = name;
  const wildcard = text(query, 'search[wildcard-name]');
  if (wildcard) filter.wildcardName = wildcard;
  const tags = list(query, 'search[tags]');
  if (tags) filter.tags = tags;
  // The change history spells the exclusion `exclude_tags`; the list endpoint documents `exclude-tags`.
  const excluded = list(query, 'search[exclude-tags]', 'search[exclude_tags]');
  if (excluded) filter.excludeTags = excluded;
  const project = text(query, 'filter[project][id]');
  if (project) filter.projectId = project;
  const tagged = readTaggedFilter(query);
  if (tagged.length > 0) filter.tagged = tagged;
  return filter;
}

export function readWorkspaceSort(query: Query): WorkspaceSort {
  const value = text(query, 'sort');
  if (value === undefined) return 'name';
  const sort = SORTS[value];
  if (!sort) throw badRequest(`sort must be one of ${Object.keys(SORTS).join(', ')}`, { title: 'bad request', parameter: 'sort' });
  return sort;
}
