import type { ResourceObject } from '../jsonapi/types.js';
import { effectiveTagBindingResource } from './resource.js';
import type { TagBindingService } from './service.js';

/** `include=effective_tag_bindings` on workspaces: the bindings in force on each workspace of the page. */
export function effectiveTagBindingsInclude(
  bindings: TagBindingService,
): (page: { rows: readonly { id: string; projectId: string }[] }) => ResourceObject[] {
  return ({ rows }) => [...bindings.effectiveOf(rows).values()].flat().map(effectiveTagBindingResource);
}
