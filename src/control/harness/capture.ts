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
  /** Whether text is to be read as JSON (from its content type, or its first character). */
  json: boolean;
}

/**
 * The bodies of one entry, redacted when first asked for and remembered after. Capturing costs a
 * reference per body, so the journal adds little to a request nobody inspects; what a reader sees
 * is redacted by the same rules either way.
 */
export function lazyBodies(request: SentBody, response: SentBody, rules: BodyRules): () => { request: unknown; response: unknown } {
  let redacted: { request: unknown; response: unknown } | undefined;
  return () => {
    redacted ??= { request: journalBody(request.body, rules, request.json), response: journalBody(response.body, rules, response.json) };
    return redacted;
  };
}
