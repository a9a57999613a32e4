/** Query parameters whose values are secrets (tokens, passwords, keys) by the shape of their names. */
const SECRET_PARAMETER = /token|secret|password|passwd|credential|signature|api[-_]?key|private[-_]?key|^key$|^sig$/i;

export const REDACTED = '[redacted]';

/**
 * The URL as it may be logged: the value of every query parameter whose name says it carries a
 * secret (`?token=…`, `?client_token=…`, `?password=…`) is replaced, everything else kept as sent.
 */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
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
  return `${url.slice(0, query)}?${pairs.join('&')}`;
}
