import type { Backend, PathSpec } from './types.js';

export interface CompiledPath {
  spec: PathSpec;
  regex: RegExp;
}

export interface PathMatch {
  spec: PathSpec;
  params: Record<string, string>;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `roles/:name` → `^roles/(?<name>[^/]+)/?$`; `:path*` captures the rest, slashes included. */
export function compilePattern(pattern: string): RegExp {
  const source = pattern
    .split('/')
    .map((segment) => {
      const capture = /^:([A-Za-z_][A-Za-z0-9_]*)(\*)?$/.exec(segment);
      if (!capture) return escape(segment);
      return capture[2] ? `(?<${capture[1]}>.*)` : `(?<${capture[1]}>[^/]+)`;
    })
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/** A backend's paths, compiled once; the first pattern that matches wins, as in the table's order. */
export class PathTable {
  private readonly compiled: CompiledPath[];

  constructor(readonly backend: Backend) {
    this.compiled = backend.paths.map((spec) => ({ spec, regex: compilePattern(spec.pattern) }));
  }

  match(path: string): PathMatch | undefined {
    for (const { spec, regex } of this.compiled) {
      const found = regex.exec(path);
      if (found) return { spec, params: { ...found.groups } };
    }
    return undefined;
  }
}
