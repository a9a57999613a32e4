import { badRequest } from '../../core/errors.js';
import { queryList } from './query.js';
import type { ResourceObject } from './types.js';

/**
 * Parses `include` against the values an endpoint supports. Any other value is a 400 whose
 * detail contains "include parameter", which is what real clients match on.
 */
export function readInclude(query: Record<string, unknown>, allowed: readonly string[]): Set<string> {
  const values = queryList(query, 'include');
  for (const value of values) {
    if (!allowed.includes(value)) {
      throw badRequest(`Invalid include parameter: "${value}" is not one of ${allowed.join(', ') || '(none)'}`, {
        title: 'bad request',
        parameter: 'include',
      });
    }
  }
  return new Set(values);
}

/** Collects `included` objects, each once, in first-seen order. */
export class Included {
  private readonly byKey = new Map<string, ResourceObject>();

  add(...resources: (ResourceObject | null | undefined)[]): void {
    for (const resource of resources) {
      if (!resource) continue;
      const key = `${resource.type}\u0000${resource.id}`;
      if (!this.byKey.has(key)) this.byKey.set(key, resource);
    }
  }

  toArray(): ResourceObject[] | undefined {
    return this.byKey.size === 0 ? undefined : [...this.byKey.values()];
  }
}

/**
 * The relationships one resource can include, declared once: their names (for `include`'s check
 * and the route schema's documentation) and how each loads its resources from what the route
 * rendered (`Source`, e.g. the teams of the page). Routes ask for `read(query)` and `collect(…)`.
 */
export class IncludeRegistry<Source> {
  readonly names: readonly string[];

  constructor(private readonly loaders: Record<string, (source: Source) => readonly (ResourceObject | null | undefined)[]>) {
    this.names = Object.keys(loaders);
  }

  /** The `include` values of a request, each checked (400 "Invalid include parameter" otherwise). */
  read(query: Record<string, unknown>): Set<string> {
    return readInclude(query, this.names);
  }

  /** The included resources `wanted` asks for, each once, in declaration order. */
  collect(wanted: ReadonlySet<string>, source: Source, into = new Included()): Included {
    for (const name of this.names) if (wanted.has(name)) into.add(...(this.loaders[name] as (source: Source) => ResourceObject[])(source));
    return into;
  }
}
