import { perConnection } from '../../store/per-connection.js';
import { ReadCache } from '../../store/read-cache.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { WORKSPACE_PAGE_TABLES } from './page-cache.js';

/**
 * Every table a workspace list document without `include` is derived from: the page's rows and
 * what picks them (the tables the kept page watches, page-cache.ts), and what renders them (the
 * organization's defaults, tags, the caller's access levels through team and project grants,
 * variable and output ids, tag bindings).
 */
const LIST_DOCUMENT_TABLES = [...WORKSPACE_PAGE_TABLES, 'organizations', 'team_projects', 'workspace_variables', 'state_version_outputs'];

/** Documents kept: a page of up to 100 workspaces is up to about 270 KB of text. */
const DOCUMENTS_KEPT = 16;

const keepText = (text: string): string => text;

/**
 * A workspace list document as sent, kept per connection and dropped on any write to the tables
 * it is derived from (store/read-cache.ts). A page of 20 is 54 KB: building and stringifying it
 * was a third of the page's server CPU, and a new 54 KB string per request, kept alive by the
 * request journal, most of its garbage collection.
 */
const listTextCache = perConnection(
  (sqlite) => new ReadCache<string>(sqlite, 'workspace_list_text', LIST_DOCUMENT_TABLES, keepText, DOCUMENTS_KEPT),
);

/**
 * The text of a list document: kept under `key`, or made by `serialize`. `key` must name all that
 * decides the document besides the tables above (organization, caller's scope, the request's URL).
 */
export function keptListText(db: DbOrTx, key: string, serialize: () => string): string {
  return listTextCache(sqliteOf(db)).get(key, serialize);
}
