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

const LINK_SEGMENTS = LINK_PREFIXES.map((prefix) => prefix.split('/').slice(0, -1));

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Indexes (in `path.split('/')`) of the segments that are credentials: those the matched route
 * names as secret (`secretParams` of its `config`), or, when no route matched, the segment after
 * a self-authorizing link's prefix. Segments are compared decoded, so `%6fbject` is `object`.
 */
function secretSegments(segments: string[], route: RouteSecrets | undefined): number[] {
  if (route?.pattern && route.secretParams?.length) {
    const names = route.pattern.split('/');
    return route.secretParams.map((name) => names.indexOf(`:${name}`)).filter((index) => index !== -1);
  }
  const decoded = segments.map(decodeSegment);
  const prefix = LINK_SEGMENTS.find((parts) => parts.every((part, index) => decoded[index] === part));
  return prefix && segments.length > prefix.length ? [prefix.length] : [];
}

/** `path` with its credential segments replaced. */
function redactPath(path: string, route: RouteSecrets | undefined): string {
  const segments = path.split('/');
  const secret = secretSegments(segments, route);
  if (secret.length === 0) return path;
  for (const index of secret) if (index < segments.length) segments[index] = REDACTED;
  return segments.join('/');
}

/** The route a request matched: its pattern (`/api/registry/webhooks/:id/:secret`) and which parameters are secrets. */
export interface RouteSecrets {
  pattern?: string | undefined;
  secretParams?: readonly string[] | undefined;
}

/**
 * The URL as it may be logged: the credential segments of the path (by the matched route, see
 * {@link secretSegments}), and the value of every
 * query parameter whose name says it carries a secret (`?token=…`, `?client_token=…`,
 * `?password=…`), are replaced; everything else is kept as sent.
 */
export function redactUrl(url: string, route?: RouteSecrets): string {
  const query = url.indexOf('?');
  if (query === -1) return redactPath(url, route);
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
  return `${redactPath(url.slice(0, query), route)}?${pairs.join('&')}`;
}
