import type { Operation } from '../framework/types.js';
import { CAPABILITY_BITS, type ParsedPolicy, type PathRule } from './policy.js';

/** The capability each logical operation needs (lease renew/revoke are updates on `sys/`). */
const REQUIRED: Record<Operation, number> = {
  read: CAPABILITY_BITS.read,
  list: CAPABILITY_BITS.list,
  create: CAPABILITY_BITS.create,
  update: CAPABILITY_BITS.update,
  delete: CAPABILITY_BITS.delete,
  patch: CAPABILITY_BITS.patch,
};

/** Same path in several policies: the union of capabilities, except that deny wins. */
function merge(existing: number | undefined, added: number): number {
  if (existing === undefined) return added;
  if (existing & CAPABILITY_BITS.deny || added & CAPABILITY_BITS.deny) return CAPABILITY_BITS.deny;
  return existing | added;
}

interface Candidate {
  /** Position of the first `+` or `*`; later is more specific. */
  firstWildcard: number;
  isPrefix: boolean;
  wildcards: number;
  path: string;
  capabilities: number;
}

/** Negative when `a` has lower priority than `b` (the real service's ordering of wildcard matches). */
function comparePriority(a: Candidate, b: Candidate): number {
  if (a.firstWildcard !== b.firstWildcard) return a.firstWildcard - b.firstWildcard;
  if (a.isPrefix !== b.isPrefix) return a.isPrefix ? -1 : 1;
  if (a.wildcards !== b.wildcards) return b.wildcards - a.wildcards;
  if (a.path.length !== b.path.length) return a.path.length - b.path.length;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * The rules of a token's policies, compiled for matching: exact paths, prefix (`*`) paths, and
 * paths with `+` segments. An exact rule wins; otherwise the highest-priority wildcard rule.
 */
export class Acl {
  private readonly exact = new Map<string, number>();
  private readonly prefix = new Map<string, number>();
  private readonly segment = new Map<string, number>();

  constructor(
    policies: readonly ParsedPolicy[],
    readonly isRoot = false,
  ) {
    for (const policy of policies) for (const rule of policy.rules) this.add(rule);
  }

  private add(rule: PathRule): void {
    const table = rule.hasSegmentWildcards ? this.segment : rule.isPrefix ? this.prefix : this.exact;
    table.set(rule.path, merge(table.get(rule.path), rule.capabilities));
  }

  /** The capabilities (bitmask) the matching rule grants on `path`, or 0 when none matches. */
  capabilities(path: string, operation: Operation = 'read'): number {
    const normalized = path.replace(/^\/+/, '');
    const exact = this.exact.get(normalized) ?? (operation === 'list' ? this.exact.get(normalized.replace(/\/$/, '')) : undefined);
    if (exact !== undefined) return exact;
    return this.bestWildcard(normalized)?.capabilities ?? 0;
  }

  private bestWildcard(path: string): Candidate | undefined {
    const candidates: Candidate[] = [];
    let longest: string | undefined;
    for (const prefix of this.prefix.keys()) {
      if (path.startsWith(prefix) && (longest === undefined || prefix.length > longest.length)) longest = prefix;
    }
    if (longest !== undefined) {
      candidates.push({
        firstWildcard: longest.length,
        isPrefix: true,
        wildcards: 0,
        path: longest,
        capabilities: this.prefix.get(longest) as number,
      });
    }
    const parts = path.split('/');
    for (const [full, capabilities] of this.segment) {
      const candidate = matchSegments(full, parts, capabilities);
      if (candidate) candidates.push(candidate);
    }
    return candidates.sort(comparePriority).at(-1);
  }

  /** Allowed when the matching rule grants the operation's capability (and `sudo` when asked). */
  allows(path: string, operation: Operation, needsSudo: boolean): boolean {
    if (this.isRoot) return true;
    const granted = this.capabilities(path, operation);
    if (granted & CAPABILITY_BITS.deny) return false;
    if (needsSudo && !(granted & CAPABILITY_BITS.sudo)) return false;
    return (granted & REQUIRED[operation]) !== 0;
  }

  /** Whether the caller holds `sudo` on `path` (root always does). */
  hasSudo(path: string): boolean {
    if (this.isRoot) return true;
    const granted = this.capabilities(path);
    return !(granted & CAPABILITY_BITS.deny) && (granted & CAPABILITY_BITS.sudo) !== 0;
  }
}

/** Matches a `+` pattern (possibly ending in `*`) against a request path's segments. */
function matchSegments(full: string, parts: string[], capabilities: number): Candidate | undefined {
  const isPrefix = full.endsWith('*');
  const pattern = isPrefix ? full.slice(0, -1) : full;
  const segments = pattern.split('/');
  if (parts.length < segments.length) return undefined;
  if (!isPrefix && parts.length !== segments.length) return undefined;
  let wildcards = 0;
  for (const [index, segment] of segments.entries()) {
    const part = parts[index] as string;
    if (segment === '+') wildcards += 1;
    else if (segment === part) continue;
    else if (isPrefix && index === segments.length - 1 && part.startsWith(segment)) continue;
    else return undefined;
  }
  return { firstWildcard: full.indexOf('+'), isPrefix, wildcards, path: pattern, capabilities };
}
