/**
 * The provisioning-tool releases understudy knows, and the version constraints workspaces accept.
 * A workspace's `tool-version` is an exact known release or a constraint that at least one known
 * release satisfies; the default is the newest release. Keeping the list here means a new release
 * is one line; between understudy releases an operator adds one through the admin API
 * (`platform/tool-versions/`), which is why the checks take the list of releases in force.
 */

/**
 * Each minor line with its highest patch release (every patch from .0 up to it exists, but for
 * NEVER_RELEASED). Real clients still pin the oldest lines: the Go client's tests use 0.10.0.
 */
const RELEASE_LINES: readonly [minor: string, lastPatch: number][] = [
  ['0.1', 1],
  ['0.2', 2],
  ['0.3', 7],
  ['0.4', 2],
  ['0.5', 3],
  ['0.6', 16],
  ['0.7', 13],
  ['0.8', 8],
  ['0.9', 11],
  ['0.10', 8],
  ['0.11', 15],
  ['0.12', 31],
  ['0.13', 7],
  ['0.14', 11],
  ['0.15', 5],
  ['1.0', 11],
  ['1.1', 9],
  ['1.2', 9],
  ['1.3', 10],
  ['1.4', 7],
  ['1.5', 7],
  ['1.6', 6],
  ['1.7', 5],
  ['1.8', 5],
  ['1.9', 8],
  ['1.10', 5],
  ['1.11', 4],
  ['1.12', 2],
  ['1.13', 5],
  ['1.14', 0],
];

type Triple = [number, number, number];

/** Patch numbers skipped in the early lines. */
const NEVER_RELEASED = new Set(['0.3.2', '0.3.3', '0.3.4', '0.5.2']);

export const KNOWN_RELEASES: readonly string[] = RELEASE_LINES.flatMap(([minor, last]) =>
  Array.from({ length: last + 1 }, (_, patch) => `${minor}.${patch}`),
).filter((release) => !NEVER_RELEASED.has(release));

const toTriple = (release: string) => release.split('.').map(Number) as Triple;

export const LATEST_RELEASE: string = KNOWN_RELEASES[KNOWN_RELEASES.length - 1] as string;

const EXACT = /^v?(\d+)\.(\d+)\.(\d+)$/;
const PART = /^(=|!=|>=|<=|>|<|~>)?\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/;

function compare(a: Triple, b: Triple): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

type Predicate = (version: Triple) => boolean;

/** One comparison such as `>= 1.2` or `~> 1.4.0`; undefined when it does not parse. */
function parsePart(text: string): Predicate | undefined {
  const match = PART.exec(text.trim());
  if (!match) return undefined;
  const operator = match[1] ?? '=';
  const given = [match[3], match[4]].filter((part) => part !== undefined).length + 1;
  const bound: Triple = [Number(match[2]), Number(match[3] ?? 0), Number(match[4] ?? 0)];
  switch (operator) {
    case '=':
      return (v) => compare(v, bound) === 0;
    case '!=':
      return (v) => compare(v, bound) !== 0;
    case '>':
      return (v) => compare(v, bound) > 0;
    case '>=':
      return (v) => compare(v, bound) >= 0;
    case '<':
      return (v) => compare(v, bound) < 0;
    case '<=':
      return (v) => compare(v, bound) <= 0;
    default: {
      // `~> 1.2` allows 1.x from 1.2; `~> 1.2.3` allows 1.2.x from 1.2.3 (the last given part may move).
      const upper: Triple = given >= 3 ? [bound[0], bound[1] + 1, 0] : [bound[0] + 1, 0, 0];
      return (v) => compare(v, bound) >= 0 && compare(v, upper) < 0;
    }
  }
}

export type ToolVersionCheck = { ok: true; selected: string } | { ok: false; reason: string };

/**
 * Checks a `tool-version` value. `selected` is the release it means: itself when exact, the newest
 * matching release for a constraint, the newest release for `latest`.
 */
export function checkToolVersion(value: string, releases: readonly string[] = KNOWN_RELEASES): ToolVersionCheck {
  const text = value.trim();
  if (text === 'latest') return { ok: true, selected: LATEST_RELEASE };
  const exact = EXACT.exec(text);
  if (exact) {
    const release = `${Number(exact[1])}.${Number(exact[2])}.${Number(exact[3])}`;
    return releases.includes(release) ? { ok: true, selected: release } : { ok: false, reason: `is not a known release (${value})` };
  }
  const parts = text.split(',').map(parsePart);
  if (text === '' || parts.some((part) => part === undefined)) {
    return { ok: false, reason: `must be a version such as "${LATEST_RELEASE}" or a constraint such as "~> 1.5"` };
  }
  const predicates = parts as Predicate[];
  const matching = releases
    .filter((release) => EXACT.test(release))
    .map(toTriple)
    .filter((release) => predicates.every((matches) => matches(release)))
    .sort(compare);
  const newest = matching[matching.length - 1];
  if (newest) return { ok: true, selected: newest.join('.') };
  return { ok: false, reason: `matches no known release (${value})` };
}
