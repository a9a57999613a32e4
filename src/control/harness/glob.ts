/**
 * Path globs as the journal filters and fault rules take them: `*` stands for any run of
 * characters within one path segment, `**` for any run across segments, `?` for one character.
 * Everything else matches itself.
 */
const compiled = new Map<string, RegExp>();
const MAX_CACHED = 256;

export function globRegExp(glob: string): RegExp {
  let found = compiled.get(glob);
  if (found === undefined) {
    const source = glob
      .split(/(\*\*|\*|\?)/)
      .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part === '?' ? '[^/]' : part.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('');
    found = new RegExp(`^${source}$`);
    if (compiled.size >= MAX_CACHED) compiled.clear();
    compiled.set(glob, found);
  }
  return found;
}

export const globMatches = (glob: string, path: string): boolean => globRegExp(glob).test(path);
