/**
 * Reading claims as the real method does: a name starting with `/` is a JSON pointer, numbers
 * read as their integer part, and a claim compared against bound values is a list of strings,
 * booleans and numbers (a single value being a list of one).
 */

/** A claim value reduced to what comparisons see; numbers keep the integer text Go gives them. */
type Scalar = { kind: 'string'; value: string } | { kind: 'bool'; value: boolean } | { kind: 'number'; value: string };

function pointerSegments(pointer: string): string[] {
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A claim's raw value; undefined when absent (a JSON `null` is absent too, as in Go). */
export function getClaim(claims: Record<string, unknown>, name: string): unknown {
  let value: unknown;
  if (!name.startsWith('/')) {
    value = claims[name];
  } else {
    value = claims;
    for (const segment of pointerSegments(name)) {
      if (Array.isArray(value) && /^\d+$/.test(segment)) value = value[Number(segment)];
      else if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, segment)) {
        value = (value as Record<string, unknown>)[segment];
      } else return undefined;
    }
  }
  return value === null ? undefined : value;
}

function scalarOf(value: unknown): Scalar | undefined {
  if (typeof value === 'string') return { kind: 'string', value };
  if (typeof value === 'boolean') return { kind: 'bool', value };
  if (typeof value === 'number' && Number.isFinite(value)) return { kind: 'number', value: String(Math.trunc(value)) };
  return undefined;
}

/** A claim or bound value as a list; undefined when it is neither a scalar nor a list. */
export function normalizeList(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value as unknown[];
  return scalarOf(value) ? [value] : undefined;
}

const sameScalar = (a: unknown, b: unknown) => {
  const left = scalarOf(a);
  const right = scalarOf(b);
  return left !== undefined && right !== undefined && left.kind === right.kind && left.value === right.value;
};

/** Glob matching with `*` only (which also matches `/` and `:`), as the real method's glob library. */
export function globMatch(pattern: string, subject: string): boolean {
  if (pattern === '*') return true;
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === subject;
  const first = parts[0] as string;
  const last = parts[parts.length - 1] as string;
  if (!subject.startsWith(first)) return false;
  let position = first.length;
  for (const middle of parts.slice(1, -1)) {
    const found = subject.indexOf(middle, position);
    if (found < 0) return false;
    position = found + middle.length;
  }
  return subject.length - last.length >= position && subject.endsWith(last);
}

export class ClaimError extends Error {}

/** `bound_claims`: every bound claim must be present, and one of its values must match one of the token's. */
export function validateBoundClaims(type: string, bound: Record<string, unknown>, claims: Record<string, unknown>): void {
  const useGlobs = type === 'glob';
  for (const [claim, expected] of Object.entries(bound)) {
    const actual = getClaim(claims, claim);
    if (actual === undefined) throw new ClaimError(`claim ${JSON.stringify(claim)} is missing`);
    const actualValues = normalizeList(actual);
    if (!actualValues) throw new ClaimError(`received claim is not a string, bool, int or list: ${goValue(actual)}`);
    const expectedValues = normalizeList(expected);
    if (!expectedValues) throw new ClaimError(`bound claim is not a string, bool, int or list: ${goValue(expected)}`);
    const found = expectedValues.some((want) =>
      actualValues.some((got) =>
        useGlobs ? typeof want === 'string' && typeof got === 'string' && globMatch(want, got) : sameScalar(want, got),
      ),
    );
    if (!found) throw new ClaimError(`claim ${JSON.stringify(claim)} does not match any associated bound claim values`);
  }
}

/** `claim_mappings`: each present claim, which must be a string, under its metadata key. */
export function extractMetadata(claims: Record<string, unknown>, mappings: Record<string, string>): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [source, target] of Object.entries(mappings)) {
    const value = getClaim(claims, source);
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new ClaimError(`error converting claim '${source}' to string`);
    metadata[target] = value;
  }
  return metadata;
}

/** A value roughly as Go's `%v` prints it, for the texts that quote one. */
export function goValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (typeof value === 'object' && value !== null) {
    return `map[${Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([key, entry]) => `${key}:${goValue(entry)}`)
      .join(' ')}]`;
  }
  return String(value);
}
