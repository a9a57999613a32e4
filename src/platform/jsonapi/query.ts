/**
 * The values of a list-valued query parameter. Real clients join several values with commas
 * (`include=user%2Cteams`, `filter[email]=a,b`), scripts may repeat the parameter instead;
 * both arrive here as one flat list, trimmed, without empty entries.
 */
export function queryList(query: Record<string, unknown>, name: string): string[] {
  const raw = query[name];
  return (Array.isArray(raw) ? raw : [raw])
    .filter((value): value is string => typeof value === 'string')
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');
}
