import { badRequest } from '../../core/errors.js';
import type { ListLinks, PaginationMeta } from './types.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface Page {
  number: number;
  size: number;
  offset: number;
}

export interface PageOf<T> {
  items: T[];
  total: number;
  page: Page;
}

type Query = Record<string, unknown>;

function positiveInteger(query: Query, parameter: string): number | undefined {
  const raw = query[parameter];
  if (raw === undefined || raw === '') return undefined;
  const text: unknown = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (typeof text !== 'string' || !/^\d+$/.test(text) || Number(text) < 1) {
    throw badRequest(`${parameter} must be a positive integer`, { title: 'bad request', parameter });
  }
  // Beyond 2^53 the number is no longer exact, and SQLite cannot take the offset it implies.
  if (!Number.isSafeInteger(Number(text))) throw badRequest(`${parameter} is too large`, { title: 'bad request', parameter });
  return Number(text);
}

/** Reads `page[number]` and `page[size]` (brackets may arrive percent-encoded; the query parser decodes them). */
export function readPage(query: Query): Page {
  const number = positiveInteger(query, 'page[number]') ?? 1;
  const size = Math.min(positiveInteger(query, 'page[size]') ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const offset = (number - 1) * size;
  if (!Number.isSafeInteger(offset)) throw badRequest('page[number] is too large', { title: 'bad request', parameter: 'page[number]' });
  return { number, size, offset };
}

/** Slices an in-memory list; lists backed by SQL pass `total` and the page's rows instead. */
export function paginate<T>(all: readonly T[], page: Page): PageOf<T> {
  return { items: all.slice(page.offset, page.offset + page.size), total: all.length, page };
}

export function paginationMeta(page: Page, total: number): PaginationMeta {
  const totalPages = Math.max(1, Math.ceil(total / page.size));
  return {
    'current-page': page.number,
    'page-size': page.size,
    'prev-page': page.number > 1 ? page.number - 1 : null,
    'next-page': page.number < totalPages ? page.number + 1 : null,
    'total-pages': totalPages,
    'total-count': total,
  };
}

/**
 * Full URLs for `self`, `first`, `prev`, `next`, `last`, keeping the request's other query
 * parameters and writing the page parameters with percent-encoded brackets.
 */
export function paginationLinks(requestUrl: URL, meta: PaginationMeta): ListLinks {
  // The path and the other parameters are the same in every link: serialized once, the page
  // parameters appended per link (as URL would write them: searchParams serialize alike).
  const base = new URL(requestUrl.pathname, requestUrl.origin).href;
  const others = new URLSearchParams();
  for (const [key, value] of requestUrl.searchParams) {
    if (key !== 'page[number]' && key !== 'page[size]') others.append(key, value);
  }
  const size = String(meta['page-size']);
  const at = (number: number): string => {
    const params = new URLSearchParams(others);
    params.append('page[number]', String(number));
    params.append('page[size]', size);
    return `${base}?${params.toString()}`;
  };
  return {
    self: at(meta['current-page']),
    first: at(1),
    prev: meta['prev-page'] === null ? null : at(meta['prev-page']),
    next: meta['next-page'] === null ? null : at(meta['next-page']),
    last: at(meta['total-pages']),
  };
}

/** Where a page sits in a list of `total` rows, as SQL should read it. */
export interface ReadWindow {
  /** Read in the reverse order (then reverse the rows): the page is nearer the end. */
  backwards: boolean;
  offset: number;
  limit: number;
}

/**
 * OFFSET costs every row it skips, so a page past the middle is read from the end in reverse
 * order: no page skips more than half the list, and the last pages cost what the first do.
 */
export function readWindow(page: Pick<Page, 'offset' | 'size'>, total: number): ReadWindow {
  const limit = Math.max(0, Math.min(page.size, total - page.offset));
  const fromEnd = total - page.offset - limit;
  return fromEnd < page.offset ? { backwards: true, offset: fromEnd, limit } : { backwards: false, offset: page.offset, limit };
}
