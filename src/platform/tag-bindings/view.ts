import type { ResourceObject } from '../jsonapi/types.js';
import { defaultProjectId } from '../default-project.js';
import { effectiveTagBindingResource } from './resource.js';
import type { TagBindingService } from './service.js';

/** `include=effective_tag_bindings` on workspaces: the bindings in force on each workspace of the page. */
export function effectiveTagBindingsInclude(
  bindings: TagBindingService,
): (page: { organization: { id: string }; rows: readonly { id: string; projectId: string | null }[] }) => ResourceObject[] {
  return ({ organization, rows }) => {
    const holders = rows.map((row) => ({ id: row.id, projectId: row.projectId ?? defaultProjectId(organization.id) }));
    return [...bindings.effectiveOf(holders).values()].flat().map(effectiveTagBindingResource);
  };
}
