import { REDACTED, redactBody, type BodyRules } from '../../core/redact.js';

/** Stands for a streamed body, which the journal does not keep. */
export const STREAMED = Symbol('streamed body');

/** Bodies longer than this are noted by size only: the journal is for reading, not archiving. */
const MAX_KEPT_BYTES = 256 * 1024;

const sized = (bytes: number, what = 'bytes'): string => `[${bytes} ${what}]`;

function parsedJson(text: string, rules: BodyRules): unknown {
  try {
    return redactBody(JSON.parse(text), rules);
  } catch {
    return rules === 'secrets' ? REDACTED : sized(Buffer.byteLength(text));
  }
}

/**
 * A request or response body as the journal keeps it: JSON parsed and redacted by the API's
 * rules; anything else (archives, state files, PEM text) only by its size, since its content
 * cannot be redacted member by member. `json` says whether text is to be read as JSON.
 */
export function journalBody(body: unknown, rules: BodyRules, json: boolean): unknown {
  if (body === undefined || body === null || body === '') return null;
  if (body === STREAMED) return '[stream]';
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    const length = typeof body === 'string' ? body.length : body.byteLength;
    if (length > MAX_KEPT_BYTES) return sized(length);
    if (!json) return sized(length);
    return parsedJson(typeof body === 'string' ? body : body.toString('utf8'), rules);
  }
  if (typeof body === 'object' && typeof (body as { pipe?: unknown }).pipe === 'function') return '[stream]';
  return redactBody(body, rules);
}

/** Whether text with this content type (or none, for a request body that starts like JSON) is JSON. */
export function isJsonText(contentType: unknown, body: unknown): boolean {
  if (typeof contentType === 'string') return /[/+]json\b/i.test(contentType);
  if (typeof body !== 'string') return false;
  const first = body.trimStart()[0];
  return first === '{' || first === '[';
}

/** A body as it was sent, kept until someone reads the entry. */
export interface SentBody {
  body: unknown;
  /** The body's size on the wire when known (a parsed request body's `Content-Length`). */
  bytes?: number;
  /** Whether text is to be read as JSON (from its content type, or its first character). */
  json: boolean;
}

/**
 * One body as captured. A body whose entry could only ever show its size (too large, not JSON, a
 * stream) is reduced to that marker at once: keeping the reference until a reader asks would hold
 * every archive, state file and download stream sent in the last `UNDERSTUDY_JOURNAL_SIZE`
 * requests in memory (the soak of issue 22 saw the journal's share of RSS grow that way).
 */
function captured(sent: SentBody, rules: BodyRules): () => unknown {
  const { body, json } = sent;
  const text = typeof body === 'string' || Buffer.isBuffer(body);
  const length = typeof body === 'string' ? body.length : Buffer.isBuffer(body) ? body.byteLength : 0;
  const streamed =
    body === STREAMED || (typeof body === 'object' && body !== null && typeof (body as { pipe?: unknown }).pipe === 'function');
  if (streamed || (text && (!json || length > MAX_KEPT_BYTES))) {
    const marker = journalBody(body, rules, json);
    return () => marker;
  }
  return () => journalBody(body, rules, json);
}

/** About how many bytes keeping `sent` until it is read holds in memory: none for a body reduced to its marker. */
function heldBytes(sent: SentBody): number {
  const { body, json } = sent;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    const length = typeof body === 'string' ? body.length : body.byteLength;
    return json && length <= MAX_KEPT_BYTES ? length : 0;
  }
  const streamed = typeof body === 'object' && body !== null && typeof (body as { pipe?: unknown }).pipe === 'function';
  return typeof body === 'object' && body !== null && !streamed ? (sent.bytes ?? 0) : 0;
}

/**
 * The bodies of one entry, redacted when first asked for and remembered after, and about how many
 * bytes they hold until then (the journal's byte budget counts them). Capturing costs a reference
 * per small JSON body (see `captured`), so the journal adds little to a request nobody inspects;
 * what a reader sees is redacted by the same rules either way.
 */
export function lazyBodies(
  request: SentBody,
  response: SentBody,
  rules: BodyRules,
): { bodies: () => { request: unknown; response: unknown }; keptBytes: number } {
  const requestBody = captured(request, rules);
  const responseBody = captured(response, rules);
  let redacted: { request: unknown; response: unknown } | undefined;
  return {
    bodies: () => {
      redacted ??= { request: requestBody(), response: responseBody() };
      return redacted;
    },
    keptBytes: heldBytes(request) + heldBytes(response),
  };
}
