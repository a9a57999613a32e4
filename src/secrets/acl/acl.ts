import type { Operation } from '../framework/types.js';
import { CAPABILITY_BITS, shapePath, type ParsedPolicy, type PathRule } from './policy.js';
import { renderTemplate, type TemplateLookup } from './template.js';

/** The capability each logical operation needs (lease renew/revoke are updates on `sys/`). */
const REQUIRED: Record<Operation, number> = {
  read: CAPABILITY_BITS.read,
  list: CAPABILITY_BITS.list,
  create: CAPABILITY_BITS.create,
  update: CAPABILITY_BITS.update,
  delete: CAPABILITY_BITS.delete,
  patch: CAPABILITY_BITS.patch,
};

/** What the rule matching a path grants: capabilities and the wrapping TTL bounds (seconds, 0: none). */
export interface PathPermissions {
  capabilities: number;
  minWrappingTtl: number;
  maxWrappingTtl: number;
}

const NOTHING: PathPermissions = { capabilities: 0, minWrappingTtl: 0, maxWrappingTtl: 0 };

/** The smaller of two bounds where 0 means "no bound", as the real service merges wrapping TTLs. */
const lesserBound = (a: number, b: number) => (a === 0 ? b : b === 0 ? a : Math.min(a, b));

/** Same path in several policies: the union of capabilities (deny wins), the lesser wrapping bounds. */
function merge(existing: PathPermissions | undefined, added: PathPermissions): PathPermissions {
  if (existing === undefined) return added;
  const denied = existing.capabilities & CAPABILITY_BITS.deny || added.capabilities & CAPABILITY_BITS.deny;
  return {
    capabilities: denied ? CAPABILITY_BITS.deny : existing.capabilities | added.capabilities,
    minWrappingTtl: lesserBound(existing.minWrappingTtl, added.minWrappingTtl),
    maxWrappingTtl: lesserBound(existing.maxWrappingTtl, added.maxWrappingTtl),
  };
}

interface Candidate {
  /** Position of the first `+` or `*`; later is more specific. */
  firstWildcard: number;
  isPrefix: boolean;
  wildcards: number;
  path: string;
  permissions: PathPermissions;
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
  private readonly exact = new Map<string, PathPermissions>();
  private readonly prefix = new Map<string, PathPermissions>();
  private readonly segment = new Map<string, PathPermissions>();

  /** `identity` renders templated rules for the token's entity; without one (no entity) they match nothing. */
  constructor(
    policies: readonly ParsedPolicy[],
    readonly isRoot = false,
    identity?: TemplateLookup,
  ) {
    for (const policy of policies) {
      for (const rule of policy.rules) this.add(rule);
      if (!identity) continue;
      for (const { template, ...grant } of policy.templated) {
        const rendered = renderTemplate(template, identity);
        if (rendered === undefined) continue;
        try {
          this.add({ ...shapePath(rendered), ...grant });
        } catch {
          // A rendered path the parser would refuse (a value that made `+*`) grants nothing.
        }
      }
    }
  }

  private add(rule: PathRule): void {
    const table = rule.hasSegmentWildcards ? this.segment : rule.isPrefix ? this.prefix : this.exact;
    const { capabilities, minWrappingTtl, maxWrappingTtl } = rule;
    table.set(rule.path, merge(table.get(rule.path), { capabilities, minWrappingTtl, maxWrappingTtl }));
  }

  /** What the matching rule grants on `path` (nothing when none matches). */
  permissions(path: string, operation: Operation = 'read'): PathPermissions {
    const normalized = path.replace(/^\/+/, '');
    const exact = this.exact.get(normalized) ?? (operation === 'list' ? this.exact.get(normalized.replace(/\/$/, '')) : undefined);
    if (exact !== undefined) return exact;
    return this.bestWildcard(normalized)?.permissions ?? NOTHING;
  }

  /** The capabilities (bitmask) the matching rule grants on `path`, or 0 when none matches. */
  capabilities(path: string, operation: Operation = 'read'): number {
    return this.permissions(path, operation).capabilities;
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
        permissions: this.prefix.get(longest) as PathPermissions,
      });
    }
    const parts = path.split('/');
    for (const [full, permissions] of this.segment) {
      const candidate = matchSegments(full, parts, permissions);
      if (candidate) candidates.push(candidate);
    }
    return candidates.sort(comparePriority).at(-1);
  }

  /**
   * Allowed when the matching rule grants the operation's capability (and `sudo` when asked), and
   * the requested wrapping TTL (seconds; 0 for an unwrapped answer) is within the rule's bounds.
   */
  allows(path: string, operation: Operation, needsSudo: boolean, wrapTtl = 0): boolean {
    if (this.isRoot) return true;
    const { capabilities: granted, minWrappingTtl, maxWrappingTtl } = this.permissions(path, operation);
    if (granted & CAPABILITY_BITS.deny) return false;
    if (needsSudo && !(granted & CAPABILITY_BITS.sudo)) return false;
    if ((granted & REQUIRED[operation]) === 0) return false;
    if (maxWrappingTtl > 0 && (wrapTtl === 0 || wrapTtl > maxWrappingTtl)) return false;
    if (minWrappingTtl > 0 && (wrapTtl === 0 || wrapTtl < minWrappingTtl)) return false;
    // Merged policies can leave a maximum below the minimum: nothing satisfies both.
    return !(minWrappingTtl > 0 && maxWrappingTtl > 0 && maxWrappingTtl < minWrappingTtl);
  }

  /**
   * Whether some rule grants anything at or below `mount` (e.g. `secret/`), as the real service
   * decides who may see a mount's details (`sys/internal/ui/mounts/…`): a grant on the mount path
   * itself, an exact or prefix rule under it, or a `+` rule that reaches into it.
   */
  grantsUnder(mount: string): boolean {
    if (this.isRoot) return true;
    const grants = (bits: number) => bits !== 0 && !(bits & CAPABILITY_BITS.deny);
    if (grants(this.capabilities(mount))) return true;
    for (const table of [this.exact, this.prefix]) {
      for (const [path, { capabilities }] of table) if (path.startsWith(mount) && grants(capabilities)) return true;
    }
    const parts = mount.replace(/\/$/, '').split('/');
    for (const [full, { capabilities: bits }] of this.segment) {
      const segments = full.split('/');
      const reaches = parts.every((part, index) => {
        const segment = segments[index];
        if (segment === undefined) return false;
        const globbed = index === segments.length - 1 && segment.endsWith('*') && part.startsWith(segment.slice(0, -1));
        return segment === '+' || segment === part || globbed;
      });
      if (reaches && grants(bits)) return true;
    }
    return false;
  }

  /** Whether the caller holds `sudo` on `path` (root always does). */
  hasSudo(path: string): boolean {
    if (this.isRoot) return true;
    const granted = this.capabilities(path);
    return !(granted & CAPABILITY_BITS.deny) && (granted & CAPABILITY_BITS.sudo) !== 0;
  }
}

/** Matches a `+` pattern (possibly ending in `*`) against a request path's segments. */
function matchSegments(full: string, parts: string[], permissions: PathPermissions): Candidate | undefined {
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
  return { firstWildcard: full.indexOf('+'), isPrefix, wildcards, path: pattern, permissions };
}
