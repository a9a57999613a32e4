import { storeGeneration } from '../store/generation.js';

/**
 * Page boundaries of large lists, remembered so that `page[number]` stays the wire contract while
 * SQLite reads a page by key instead of stepping over every row before it (OFFSET costs what it
 * skips). When a page is read, the sort key of its first row and of the row after it are kept;
 * a later request for that page, or the next one (how clients walk a list), starts from the key.
 *
 * An entry is only as good as the list's `version` (list_counts, kept by triggers): any insert,
 * delete or change of a sort key makes it stale, and it is dropped. Only lists whose filters
 * depend on nothing but the listed rows may use anchors — a list filtered through another table
 * (tags, team access) changes without its version moving.
 */
export type SortKey = readonly (string | number)[];

interface Entry {
  version: number;
  /** Offset of a page's first row -> that row's sort key. */
  starts: Map<number, SortKey>;
}

/** How many lists (organization, filter, sort, page size) are remembered, and how many pages of each. */
const MAX_LISTS = 256;
const MAX_PAGES_PER_LIST = 4096;

export class ListAnchors {
  private readonly entries = new Map<string, Entry>();

  /** The remembered start at or before `offset` closest to it, if any, for this version of the list. */
  nearest(list: string, version: number, offset: number): { offset: number; key: SortKey } | undefined {
    const entry = this.entries.get(list);
    if (entry === undefined) return undefined;
    if (entry.version !== version) {
      this.entries.delete(list);
      return undefined;
    }
    let best: { offset: number; key: SortKey } | undefined;
    for (const [start, key] of entry.starts) {
      if (start <= offset && (best === undefined || start > best.offset)) best = { offset: start, key };
    }
    return best;
  }

  remember(list: string, version: number, offset: number, key: SortKey): void {
    let entry = this.entries.get(list);
    if (entry === undefined || entry.version !== version) {
      if (entry === undefined && this.entries.size >= MAX_LISTS) this.entries.delete(this.entries.keys().next().value as string);
      entry = { version, starts: new Map() };
      this.entries.set(list, entry);
    }
    if (entry.starts.size < MAX_PAGES_PER_LIST) entry.starts.set(offset, key);
  }
}

const anchorsByStore = new WeakMap<object, { generation: number; anchors: ListAnchors }>();

/**
 * The anchors of one store (a test process may hold several), by its SQLite connection. Once the
 * store's content was replaced wholesale (a reset, a snapshot restore), list versions from before
 * mean nothing, so its generation moving drops them all.
 */
export function anchorsOf(connection: object): ListAnchors {
  const generation = storeGeneration(connection);
  let found = anchorsByStore.get(connection);
  if (found === undefined || found.generation !== generation) {
    found = { generation, anchors: new ListAnchors() };
    anchorsByStore.set(connection, found);
  }
  return found.anchors;
}

/** What a list reader is asked for: `limit` rows after skipping `offset`, from `from` (inclusive) or an end. */
export interface WindowRequest {
  offset: number;
  limit: number;
  /** Read from the end, in reverse order (the caller reverses back). */
  backwards: boolean;
  /** The sort key to start at, reading forwards; undefined: the start of the list. */
  from: SortKey | undefined;
}

/**
 * One page of a counted list, read the cheapest way: from the nearest remembered page start, or
 * backwards from the end when that is closer, and never by stepping over more rows than that.
 * `list.key` names the list (organization, sort, page size, filter) and `list.version` its
 * list_counts version, so a change to the list forgets its anchors. A list without a key (one
 * filtered through another table, which its version does not follow) is read from an end only.
 */
export function anchoredPage<Row>(
  anchors: ListAnchors,
  list: { key: string | undefined; version: number; total: number },
  page: { offset: number; size: number },
  keyOf: (row: Row) => SortKey,
  read: (window: WindowRequest) => Row[],
): Row[] {
  const limit = Math.min(page.size, list.total - page.offset);
  if (limit <= 0) return [];
  const fromEnd = list.total - page.offset - limit;
  const key = list.key;
  const anchor = key === undefined ? undefined : anchors.nearest(key, list.version, page.offset);
  const skip = page.offset - (anchor?.offset ?? 0);
  let rows: Row[];
  if (fromEnd < skip) {
    rows = read({ offset: fromEnd, limit, backwards: true, from: undefined }).reverse();
  } else {
    // One row beyond the page: its key is where the next page starts.
    rows = read({ offset: skip, limit: limit + 1, backwards: false, from: anchor?.key });
    const next = rows.length > limit ? rows.pop() : undefined;
    if (key !== undefined && next !== undefined) anchors.remember(key, list.version, page.offset + page.size, keyOf(next));
  }
  if (key !== undefined && rows[0] !== undefined) anchors.remember(key, list.version, page.offset, keyOf(rows[0]));
  return rows;
}
