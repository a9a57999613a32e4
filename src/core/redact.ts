/** Query parameters whose values are secrets (tokens, passwords, keys) by the shape of their names. */
const SECRET_PARAMETER = /token|secret|password|passwd|credential|signature|api[-_]?key|private[-_]?key|^key$|^sig$/i;

export const REDACTED = '[redacted]';

/**
 * Paths whose next segment is itself a credential: self-authorizing upload and download links
 * (state objects, registry archives and uploads).
 */
const LINK_PREFIXES = [
  '/_archivist/v1/object/upload/',
  '/_archivist/v1/object/download/',
  '/api/registry/uploads/v1/object/',
  '/api/registry/archives/',
];

/** `path` with the credential segment of a self-authorizing link replaced. */
function redactLink(path: string): string {
  const prefix = LINK_PREFIXES.find((candidate) => path.startsWith(candidate));
  if (prefix === undefined) return path;
  const rest = path.slice(prefix.length);
  const end = rest.indexOf('/');
  return `${prefix}${REDACTED}${end === -1 ? '' : rest.slice(end)}`;
}

/**
 * The URL as it may be logged: the credential of a self-authorizing link, and the value of every
 * query parameter whose name says it carries a secret (`?token=…`, `?client_token=…`,
 * `?password=…`), are replaced; everything else is kept as sent.
 */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return redactLink(url);
  const pairs = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return pair;
      let name = pair.slice(0, equals);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A malformed escape is still a name to check as written.
      }
      return SECRET_PARAMETER.test(name) ? `${pair.slice(0, equals)}=${REDACTED}` : pair;
    });
  return `${redactLink(url.slice(0, query))}?${pairs.join('&')}`;
}
