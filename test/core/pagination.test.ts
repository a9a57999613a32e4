import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { paginationLinks, paginationMeta, readPage } from '../../src/platform/jsonapi/pagination.js';

describe('pagination', () => {
  it('defaults to page 1 of 20 and caps the size at 100', () => {
    expect(readPage({})).toEqual({ number: 1, size: 20, offset: 0 });
    expect(readPage({ 'page[number]': '3', 'page[size]': '150' })).toEqual({ number: 3, size: 100, offset: 200 });
  });

  it.each(['0', '-1', 'x', '1.5'])('refuses page[number]=%s with a 400 naming the parameter', (value) => {
    try {
      readPage({ 'page[number]': value });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).options.parameter).toBe('page[number]');
    }
  });

  it('describes a page past the end with the real total', () => {
    expect(paginationMeta({ number: 999, size: 100, offset: 99800 }, 3)).toEqual({
      'current-page': 999,
      'page-size': 100,
      'prev-page': 998,
      'next-page': null,
      'total-pages': 1,
      'total-count': 3,
    });
  });

  it('writes full links with encoded brackets, keeping other parameters', () => {
    const meta = paginationMeta({ number: 2, size: 20, offset: 20 }, 45);
    const links = paginationLinks(new URL('http://h:1/api/v2/x?q=a%20b&page%5Bnumber%5D=2&page%5Bsize%5D=20'), meta);
    expect(links).toEqual({
      self: 'http://h:1/api/v2/x?q=a+b&page%5Bnumber%5D=2&page%5Bsize%5D=20',
      first: 'http://h:1/api/v2/x?q=a+b&page%5Bnumber%5D=1&page%5Bsize%5D=20',
      prev: 'http://h:1/api/v2/x?q=a+b&page%5Bnumber%5D=1&page%5Bsize%5D=20',
      next: 'http://h:1/api/v2/x?q=a+b&page%5Bnumber%5D=3&page%5Bsize%5D=20',
      last: 'http://h:1/api/v2/x?q=a+b&page%5Bnumber%5D=3&page%5Bsize%5D=20',
    });
  });
});
