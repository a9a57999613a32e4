import { describe, expect, it } from 'vitest';
import { Attr, listQuery, params, resourceBody, showQuery } from '../../src/platform/jsonapi/schemas.js';
import { A, Nullable, paged, single } from '../../src/platform/jsonapi/responses.js';

type Node = { description?: string; properties?: Record<string, Node>; items?: Node };
const node = (schema: unknown) => schema as Node;

/**
 * Route schema parts are built once per distinct input and shared between routes (start-up
 * cost). Sharing must never hand a route another input's schema: each case below would fail if
 * a cache key left out something the schema depends on.
 */
describe('shared route schema parts', () => {
  it('lists share a query only when includes and filters are the same, in the same order', () => {
    const base = listQuery({ includes: ['organization'], filters: ['search[name]'] });
    expect(listQuery({ includes: ['organization'], filters: ['search[name]'] })).toBe(base);
    const otherFilter = listQuery({ includes: ['organization'], filters: ['filter[status]'] });
    expect(Object.keys(otherFilter.properties)).toEqual(['page[number]', 'page[size]', 'include', 'filter[status]']);
    const twoFilters = listQuery({ filters: ['b', 'a'] });
    expect(Object.keys(twoFilters.properties)).toEqual(['page[number]', 'page[size]', 'include', 'b', 'a']);
    expect(Object.keys(listQuery({ filters: ['a', 'b'] }).properties)).toEqual(['page[number]', 'page[size]', 'include', 'a', 'b']);
    const otherInclude = listQuery({ includes: ['workspace'], filters: ['search[name]'] });
    expect(node(otherInclude.properties.include).description).toBe('comma-separated, any of: workspace');
    expect(node(base.properties.include).description).toBe('comma-separated, any of: organization');
  });

  it('single reads document the includes each offers', () => {
    expect(node(showQuery(['a', 'b']).properties.include).description).toBe('comma-separated, any of: a, b');
    expect(node(showQuery().properties.include).description).toBe('no relationship can be included here');
    expect(showQuery(['a', 'b'])).toBe(showQuery(['a', 'b']));
  });

  it('attributes keep their own kind and description', () => {
    expect(Attr.string('a name')).toEqual(expect.objectContaining({ description: 'a name' }));
    expect(Attr.string()).not.toHaveProperty('description');
    expect(Attr.boolean('a name').anyOf[0]).toEqual(expect.objectContaining({ type: 'boolean' }));
    expect(Attr.integer('a name').anyOf[0]).toEqual(expect.objectContaining({ type: 'integer' }));
  });

  it('bodies name their own relationships and types', () => {
    const body = resourceBody(['workspaces'], { relationships: ['project'] });
    expect(Object.keys(body.properties.data.properties.relationships.anyOf[0].properties)).toEqual(['project']);
    const other = resourceBody(['teams'], { relationships: ['organization'] });
    expect(Object.keys(other.properties.data.properties.relationships.anyOf[0].properties)).toEqual(['organization']);
    expect(params('a', 'b')).toBe(params('a', 'b'));
  });

  it('response documents wrap their own resource', () => {
    const first = Nullable(A.string());
    const second = Nullable(A.integer());
    expect(first.anyOf[0]).toEqual(expect.objectContaining({ type: 'string' }));
    expect(second.anyOf[0]).toEqual(expect.objectContaining({ type: 'integer' }));
    const one = Nullable(A.string());
    expect(node(single(one)).properties?.['data']).toBe(one);
    expect(node(paged(second)).properties?.['data']?.items).toBe(second);
    expect(node(single(A.string(), 'described')).description).toBe('described');
    expect(single(A.string())).not.toHaveProperty('description');
  });
});
