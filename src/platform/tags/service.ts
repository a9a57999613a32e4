import type { Clock } from '../../core/clock.js';
import { ApiError, unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db, DbOrTx } from '../../store/store.js';
import type { OrganizationRow } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { Page } from '../jsonapi/pagination.js';
import { findOrganizationById } from '../organizations/repo.js';
import * as repo from './repo.js';
import type { TagRow } from './repo.js';

/** One entry of a tags body: `id` or `attributes.name` (the id wins when both are given). */
export interface TagReference {
  id?: string;
  name?: string;
  /** JSON pointer of the entry, for 422s. */
  pointer: string;
}

export const TAG_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9:_-]*[A-Za-z0-9])?$/;
const TAG_NAME_TEXT = 'must start and end with a letter or number and contain only letters, numbers, ":", "-" and "_"';

/** Reads the entries of `{"data": [{type, id?, attributes: {name?}}]}` into references. */
export function tagReferences(entries: { id?: string; attributes: Record<string, unknown> }[], base = '/data'): TagReference[] {
  return entries.map((entry, index) => {
    const pointer = `${base}/${index}`;
    if (entry.id !== undefined) return { id: entry.id, pointer };
    const name = entry.attributes['name'];
    if (typeof name !== 'string' || name === '')
      throw unprocessable('each tag needs an id or attributes.name', `${pointer}/attributes/name`);
    if (name.length > 255 || !TAG_NAME.test(name)) throw unprocessable(`tag name ${TAG_NAME_TEXT}`, `${pointer}/attributes/name`);
    return { name, pointer };
  });
}

/**
 * The tag rules of the workspace tag endpoints: adding by id needs an existing tag, adding by a
 * new name creates the organization tag; removing by an unknown name does nothing; a tag left on
 * no workspace leaves the organization's list.
 */
export class TagService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** One page of an organization's tags (the caller already passed the organization's check). */
  listOfOrganization(organizationId: string, filter: repo.OrganizationTagFilter, page: Page) {
    return repo.listOrganizationTags(this.db, organizationId, filter, page.offset, page.size);
  }

  /** One page of a workspace's tags, optionally only those named `name`. */
  listOfWorkspace(workspaceId: string, name: string | undefined, page: Page) {
    return repo.listWorkspaceTags(this.db, workspaceId, name, page.offset, page.size);
  }

  /** A tag and its organization; the 404 of a missing tag otherwise (permissions are the caller's to check). */
  withOrganization(id: string): { tag: TagRow; organization: OrganizationRow } {
    const tag = repo.findTag(this.db, id);
    const organization = tag && findOrganizationById(this.db, tag.organizationId);
    if (!tag || !organization) throw NOT_FOUND;
    return { tag, organization };
  }

  private byId(db: DbOrTx, organizationId: string, reference: TagReference & { id: string }): TagRow {
    const tag = repo.findTag(db, reference.id);
    if (!tag || tag.organizationId !== organizationId) throw new ApiError(404, `tag ${reference.id} not found`);
    return tag;
  }

  add(db: DbOrTx, organizationId: string, workspaceId: string, references: TagReference[]): void {
    // Positions are counted here rather than per insert, so a long body costs linear time.
    let position = repo.nextTagPosition(db, workspaceId);
    for (const reference of references) {
      let tag: TagRow | undefined;
      if (reference.id !== undefined) tag = this.byId(db, organizationId, { ...reference, id: reference.id });
      else {
        const name = reference.name as string;
        tag = repo.findTagByName(db, organizationId, name);
        if (!tag) {
          tag = { id: newId('tag'), organizationId, name, createdAt: this.clock.now() };
          repo.insertTag(db, tag);
        }
      }
      if (repo.attachTag(db, workspaceId, tag.id, position)) position += 1;
    }
  }

  remove(db: DbOrTx, organizationId: string, workspaceId: string, references: TagReference[]): void {
    const touched: string[] = [];
    for (const reference of references) {
      const tag =
        reference.id !== undefined
          ? this.byId(db, organizationId, { ...reference, id: reference.id })
          : repo.findTagByName(db, organizationId, reference.name as string);
      if (!tag) continue;
      repo.detachTag(db, workspaceId, tag.id);
      touched.push(tag.id);
    }
    repo.deleteUnusedTags(db, touched);
  }

  /** Bulk delete of organization tags: every id must name one of its tags, then all go at once. */
  deleteTags(db: DbOrTx, organizationId: string, ids: { id?: string }[]): void {
    const tagIds = ids.map((entry, index) => {
      const tag = entry.id === undefined ? undefined : repo.findTag(db, entry.id);
      if (!tag || tag.organizationId !== organizationId)
        throw new ApiError(404, `tag ${entry.id ?? ''} not found`.trim(), { pointer: `/data/${index}/id` });
      return tag.id;
    });
    repo.deleteTags(db, tagIds);
  }

  /** Puts one tag on several workspaces (each at the end of that workspace's tag order). */
  addToWorkspaces(db: DbOrTx, tag: TagRow, workspaceIds: readonly string[]): void {
    for (const workspaceId of workspaceIds) repo.attachTag(db, workspaceId, tag.id, repo.nextTagPosition(db, workspaceId));
  }
}
