import type { Backend, PathSpec } from './types.js';

export interface CompiledPath {
  spec: PathSpec;
  regex: RegExp;
  /**
   * The pattern's first segment when it is literal text (undefined when it captures): a path the
   * pattern matches starts with it, followed by `/` or nothing. Checked before the expression, so a
   * request tries the expressions of the few patterns under its own first segment, not the table's.
   */
  head: string | undefined;
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

/** The literal first segment of a pattern, or undefined when that segment captures. */
function literalHead(pattern: string): string | undefined {
  const slash = pattern.indexOf('/');
  const first = slash === -1 ? pattern : pattern.slice(0, slash);
  return first.startsWith(':') ? undefined : first;
}

/** Whether `path` can match a pattern whose literal first segment is `head`. */
function underHead(path: string, head: string): boolean {
  return path.startsWith(head) && (path.length === head.length || path.charCodeAt(head.length) === SLASH);
}

const SLASH = 0x2f;

/** A backend's paths, compiled once; the first pattern that matches wins, as in the table's order. */
export class PathTable {
  private readonly compiled: CompiledPath[];

  constructor(readonly backend: Backend) {
    this.compiled = backend.paths.map((spec) => ({ spec, regex: compilePattern(spec.pattern), head: literalHead(spec.pattern) }));
  }

  match(path: string): PathMatch | undefined {
    for (const { spec, regex, head } of this.compiled) {
      if (head !== undefined && !underHead(path, head)) continue;
      const found = regex.exec(path);
      if (found) return { spec, params: { ...found.groups } };
    }
    return undefined;
  }
}
