import type { ResourceObject } from '../jsonapi/types.js';
import type { TagBindingRow } from './repo.js';

/** A binding in force on a workspace; `inheritedFrom` names the project it comes from, if any. */
export interface EffectiveBinding {
  binding: TagBindingRow;
  inheritedFrom?: string;
}

export function tagBindingResource(row: TagBindingRow): ResourceObject {
  return { id: row.id, type: 'tag-bindings', attributes: { key: row.key, value: row.value } };
}

/** Own bindings carry no links at all: real clients tell inherited ones by `links.inherited-from`. */
export function effectiveTagBindingResource({ binding, inheritedFrom }: EffectiveBinding): ResourceObject {
  return {
    id: binding.id,
    type: 'effective-tag-bindings',
    attributes: { key: binding.key, value: binding.value },
    ...(inheritedFrom ? { links: { 'inherited-from': `/api/v2/projects/${inheritedFrom}` } } : {}),
  };
}
