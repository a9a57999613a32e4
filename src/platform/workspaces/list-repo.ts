import type Database from 'better-sqlite3';
import { preparedSql } from '../../store/prepared.js';
import { jsonList } from '../../store/sql-lists.js';
import { sqliteOf, type Db } from '../../store/store.js';
import type { ReadableSet } from '../auth/workspace-permissions.js';
import { anchoredPage, anchorsOf, type WindowRequest } from '../list-anchors.js';
import { likeLiteral } from '../sql-like.js';
import { workspaceRows, type WorkspaceFilter, type WorkspaceRow, type WorkspaceSort } from './repo.js';

/**
 * The workspace list as raw SQL, prepared once per shape (store/prepared.ts): the page is read as
 * rowids off an index, then the 20 rows by rowid. What keeps a page's cost flat as the store grows:
 * - the total of an unfiltered list comes from `list_counts` (kept by triggers), not `count(*)`;
 * - a page in the second half is read from the end in reverse order, so OFFSET skips little;
 * - pages already read leave their first key behind (list-anchors.ts), so the next request for
 *   that page or the one after starts there;
 * - `search[name]` and `*…` wildcards go through the `workspace_names` trigram index, and `x*`
 *   wildcards through the `lower(name)` index, instead of a LIKE over every name.
 */

interface Shape {
  where: string[];
  params: (string | number)[];
  /** Filters that depend only on the workspace rows, so the list's version covers them. */
  anchorable: boolean;
  /** A text naming the filter and its values, part of the anchor key. */
  label: string;
  /** `FROM` with the index SQLite must use, when its own choice (made without statistics) is a scan. */
  from: string;
}

/**
 * Each order's key expressions over `w` (read in one direction). A current-run order keys on the
 * run's creation time; a workspace without a run takes a key past every real one, so it comes
 * last whichever way the list runs (as the admin list puts it).
 */
const runCreatedAt = (missing: number) => `coalesce((SELECT r.created_at FROM runs r WHERE r.id = w.current_run_id), ${missing})`;
const SORTS: Record<WorkspaceSort, { keys: string[]; descending: boolean; anchorable: boolean }> = {
  name: { keys: ['w.name'], descending: false, anchorable: true },
  '-name': { keys: ['w.name'], descending: true, anchorable: true },
  // Names are unique per organization, so they settle ties in the timestamp orders.
  'created-at': { keys: ['w.created_at', 'w.name'], descending: false, anchorable: true },
  '-created-at': { keys: ['w.created_at', 'w.name'], descending: true, anchorable: true },
  'updated-at': { keys: ['w.updated_at', 'w.name'], descending: false, anchorable: true },
  '-updated-at': { keys: ['w.updated_at', 'w.name'], descending: true, anchorable: true },
  // A new run moves a workspace without changing the list's version, so these keep no anchors.
  'current-run.created-at': { keys: [runCreatedAt(Number.MAX_SAFE_INTEGER), 'w.name'], descending: false, anchorable: false },
  '-current-run.created-at': { keys: [runCreatedAt(-1), 'w.name'], descending: true, anchorable: false },
};

/** An FTS5 phrase matching `text` as a substring (the trigram tokenizer needs three characters). */
function phrase(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

function nameShape(shape: Shape, filter: WorkspaceFilter): void {
  const substrings: string[] = [];
  if (filter.name) {
    shape.where.push(`w.name LIKE ? ESCAPE '\\'`);
    shape.params.push(`%${likeLiteral(filter.name)}%`);
    substrings.push(filter.name);
  }
  const pattern = filter.wildcardName;
  if (pattern) {
    const leading = pattern.startsWith('*');
    const trailing = pattern.length > 1 && pattern.endsWith('*');
    const core = pattern.slice(leading ? 1 : 0, trailing ? -1 : undefined);
    if (!leading && !trailing) {
      shape.where.push('w.name = ?');
      shape.params.push(core);
    } else {
      shape.where.push(`w.name LIKE ? ESCAPE '\\'`);
      shape.params.push(`${leading ? '%' : ''}${likeLiteral(core)}${trailing ? '%' : ''}`);
      if (leading) substrings.push(core);
      else if (core !== '') {
        // A prefix: a range of the lower(name) index (LIKE is case-insensitive, so is the index).
        const low = core.toLowerCase();
        shape.where.push('lower(w.name) >= ?', 'lower(w.name) < ?');
        shape.from = 'workspaces w INDEXED BY workspaces_org_lower_name';
        shape.params.push(low, low.slice(0, -1) + String.fromCharCode(low.charCodeAt(low.length - 1) + 1));
      }
    }
  }
  const indexed = substrings.filter((text) => [...text].length >= 3);
  if (indexed.length > 0) {
    shape.where.push('w.rowid IN (SELECT rowid FROM workspace_names WHERE workspace_names MATCH ?)');
    shape.params.push(indexed.map(phrase).join(' AND '));
  }
}

function tagShape(shape: Shape, organizationId: string, filter: WorkspaceFilter): void {
  const tagged = (names: string[]) =>
    'SELECT wt.workspace_id FROM workspace_tags wt JOIN tags t ON t.id = wt.tag_id ' +
    `WHERE t.organization_id = ? AND t.name IN (${names.map(() => '?').join(', ')})`;
  const wanted = [...new Set(filter.tags ?? [])];
  if (wanted.length > 0) {
    shape.where.push(`w.id IN (${tagged(wanted)} GROUP BY wt.workspace_id HAVING count(*) = ?)`);
    shape.params.push(organizationId, ...wanted, wanted.length);
    shape.anchorable = false;
  }
  const unwanted = [...new Set(filter.excludeTags ?? [])];
  if (unwanted.length > 0) {
    shape.where.push(`w.id NOT IN (${tagged(unwanted)})`);
    shape.params.push(organizationId, ...unwanted);
    shape.anchorable = false;
  }
}

/**
 * `filter[tagged]`: per condition, the workspaces with the binding of their own, those whose
 * project has it and that do not override the key. Each part starts from the `tag_bindings_org_key_value` index, so
 * the cost follows the matches, not the store.
 */
function taggedShape(shape: Shape, organizationId: string, filter: WorkspaceFilter): void {
  for (const condition of filter.tagged ?? []) {
    const valued = condition.value !== undefined;
    const match = (alias: string) => `${alias}.organization_id = ? AND ${alias}.key = ?${valued ? ` AND ${alias}.value = ?` : ''}`;
    const matchParams = [organizationId, condition.key, ...(valued ? [condition.value as string] : [])];
    const overridden = (alias: string) => `NOT EXISTS (SELECT 1 FROM tag_bindings o WHERE o.workspace_id = ${alias}.id AND o.key = ?)`;
    const parts = [
      `SELECT b.workspace_id FROM tag_bindings b WHERE ${match('b')} AND b.workspace_id IS NOT NULL`,
      `SELECT pw.id FROM tag_bindings p JOIN workspaces pw ON pw.project_id = p.project_id ` +
        `WHERE ${match('p')} AND p.project_id IS NOT NULL AND ${overridden('pw')}`,
    ];
    const params: string[] = [...matchParams, ...matchParams, condition.key];
    shape.where.push(`w.id IN (${parts.join(' UNION ALL ')})`);
    shape.params.push(...params);
    shape.anchorable = false;
  }
}

/** `filter[project][id]`. */
function projectShape(shape: Shape, filter: WorkspaceFilter): void {
  if (!filter.projectId) return;
  shape.where.push('w.project_id = ?');
  shape.params.push(filter.projectId);
  shape.anchorable = false;
}

function shapeOf(organizationId: string, readable: ReadableSet, filter: WorkspaceFilter): Shape | undefined {
  const shape: Shape = {
    where: [],
    params: [],
    anchorable: true,
    label: JSON.stringify([filter.name ?? '', filter.wildcardName ?? '']),
    from: 'workspaces w',
  };
  if (!readable.all) {
    if (readable.teamIds.length === 0) return undefined;
    const granted = [`w.id IN (SELECT workspace_id FROM team_workspaces WHERE team_id IN (${readable.teamIds.map(() => '?').join(', ')}))`];
    shape.params.push(...readable.teamIds);
    if (readable.projectIds.length > 0) {
      granted.push(`w.project_id IN (${readable.projectIds.map(() => '?').join(', ')})`);
      shape.params.push(...readable.projectIds);
    }
    shape.where.push(granted.length === 1 ? (granted[0] as string) : `(${granted.join(' OR ')})`);
    shape.anchorable = false;
  }
  nameShape(shape, filter);
  tagShape(shape, organizationId, filter);
  projectShape(shape, filter);
  taggedShape(shape, organizationId, filter);
  // With a narrower index condition present, the organization is checked per row ("+" keeps
  // SQLite from walking the organization's whole index instead).
  const narrowed =
    shape.from === 'workspaces w' && shape.where.some((part) => part.includes('workspace_names') || part.includes('tag_bindings'));
  shape.where.unshift(narrowed ? '+w.organization_id = ?' : 'w.organization_id = ?');
  shape.params.unshift(organizationId);
  return shape;
}

// The page's rows in one statement (compiled once); SQLite returns them in any order, the caller restores the page's.
const ROWS_BY_ROWIDS = `SELECT w.rowid, ${workspaceRows.columns('w')} FROM workspaces w WHERE w.rowid IN (SELECT value FROM json_each(?))`;

/** Rowids and sort keys of a window, read forwards (optionally from a key) or backwards from the end. */
function readWindow(sqlite: Database.Database, shape: Shape, sort: WorkspaceSort, window: WindowRequest): (string | number)[][] {
  const { keys, descending } = SORTS[sort];
  const direction = descending !== window.backwards ? 'DESC' : 'ASC';
  const where = [...shape.where];
  const params: (string | number)[] = [...shape.params];
  if (window.from && window.from.length > 0) {
    where.push(`(${keys.join(', ')}) ${direction === 'DESC' ? '<=' : '>='} (${keys.map(() => '?').join(', ')})`);
    params.push(...window.from);
  }
  const selected = keys.join(', ');
  const order = keys.map((key) => `${key} ${direction}`).join(', ');
  const text = `SELECT w.rowid AS r, ${selected} FROM ${shape.from} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ? OFFSET ?`;
  return preparedSql(sqlite, text)
    .raw()
    .all(...params, window.limit, window.offset) as (string | number)[][];
}

/**
 * SQLite's plan (EXPLAIN QUERY PLAN details) for the first page and the total of a list an
 * organization-wide reader asks for: tests check that filters start from an index.
 */
export function listQueryPlan(
  db: Db,
  organizationId: string,
  filter: WorkspaceFilter,
  sort: WorkspaceSort,
): { page: string[]; total: string[] } {
  const sqlite = sqliteOf(db);
  const shape = shapeOf(organizationId, { all: true }, filter) as Shape;
  const { keys, descending } = SORTS[sort];
  const order = keys.map((key) => `${key} ${descending ? 'DESC' : 'ASC'}`).join(', ');
  const explain = (text: string, params: (string | number)[]) =>
    (sqlite.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as { detail: string }[]).map((row) => row.detail);
  return {
    page: explain(`SELECT w.rowid FROM ${shape.from} WHERE ${shape.where.join(' AND ')} ORDER BY ${order} LIMIT 20`, shape.params),
    total: explain(`SELECT count(*) FROM ${shape.from} WHERE ${shape.where.join(' AND ')}`, shape.params),
  };
}

const COUNTS = `SELECT total, version FROM list_counts WHERE list = 'workspaces' AND organization_id = ?`;

/** One page of the organization's workspaces the caller may read, and how many there are in all. */
export function pageOfWorkspaces(
  db: Db,
  organizationId: string,
  readable: ReadableSet,
  filter: WorkspaceFilter,
  sort: WorkspaceSort,
  page: { offset: number; size: number },
): { rows: WorkspaceRow[]; total: number } {
  const sqlite = sqliteOf(db);
  const shape = shapeOf(organizationId, readable, filter);
  if (shape === undefined) return { rows: [], total: 0 };
  const counts = (preparedSql(sqlite, COUNTS).get(organizationId) as { total: number; version: number } | undefined) ?? {
    total: 0,
    version: 0,
  };
  const filtered = shape.where.length > 1;
  const total = filtered
    ? (preparedSql(sqlite, `SELECT count(*) FROM ${shape.from} WHERE ${shape.where.join(' AND ')}`)
        .pluck()
        .get(...shape.params) as number)
    : counts.total;
  const anchorable = shape.anchorable && SORTS[sort].anchorable;
  const listKey = anchorable ? `${organizationId}\u0000${sort}\u0000${page.size}\u0000${shape.label}` : undefined;
  const keyed = anchoredPage(
    anchorsOf(sqlite),
    { key: listKey, version: counts.version, total },
    page,
    (row: (string | number)[]) => row.slice(1),
    (window) => readWindow(sqlite, shape, sort, window),
  );
  const byRowid = new Map<number, WorkspaceRow>();
  const found = preparedSql(sqlite, ROWS_BY_ROWIDS)
    .raw()
    .all(jsonList(keyed.map(([rowid]) => rowid as number))) as unknown[][];
  for (const values of found) byRowid.set(values[0] as number, workspaceRows.read(values, 1));
  const rows = keyed.map(([rowid]) => byRowid.get(rowid as number)).filter((row): row is WorkspaceRow => row !== undefined);
  return { rows, total };
}
