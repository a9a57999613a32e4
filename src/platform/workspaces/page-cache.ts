import { perConnection } from '../../store/per-connection.js';
import { deepFreeze, ReadCache } from '../../store/read-cache.js';
import type { Db } from '../../store/store.js';
import { sqliteOf } from '../../store/store.js';
import type { ReadableSet } from '../auth/workspace-permissions.js';
import { pageOfWorkspaces } from './list-repo.js';
import type { WorkspaceFilter, WorkspaceRow, WorkspaceSort } from './repo.js';

type Page = { readonly rows: readonly WorkspaceRow[]; readonly total: number };

/** Pages kept: a page holds up to 100 wide rows, so fewer than the default (a client walking a big list passes through). */
const PAGE_LIMIT = 32;

/** The tables a page of workspaces is read from (see below). */
export const WORKSPACE_PAGE_TABLES = ['workspaces', 'tags', 'workspace_tags', 'tag_bindings', 'team_workspaces', 'runs', 'list_counts'];

/**
 * A page of an organization's workspaces, kept per connection by everything that decides it (the
 * organization, what the caller may read, filter, sort, offset and size) and dropped on any write
 * to the tables a page is read from (store/read-cache.ts): the rows, their tags and tag bindings
 * (filters), team access (what a caller below admin may list), runs (the current-run sort) and
 * the list counts. The trigram index over names follows `workspaces` through its own triggers.
 */
const pageCache = perConnection((sqlite) => new ReadCache<Page>(sqlite, 'workspace_page', WORKSPACE_PAGE_TABLES, deepFreeze, PAGE_LIMIT));

/** `pageOfWorkspaces`, kept between writes. */
export function keptPageOfWorkspaces(
  db: Db,
  organizationId: string,
  readable: ReadableSet,
  filter: WorkspaceFilter,
  sort: WorkspaceSort,
  page: { offset: number; size: number },
): Page {
  const key = JSON.stringify([organizationId, readable, filter, sort, page.offset, page.size]);
  return pageCache(sqliteOf(db)).get(key, () => pageOfWorkspaces(db, organizationId, readable, filter, sort, page));
}
