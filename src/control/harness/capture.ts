import { REDACTED, redactBody, SECRET_BODY, type BodyRules } from '../../core/redact.js';

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

const JSON_TYPE = /[/+]json\b/i;
/** The last content type asked about, and its answer: a server sends a few types, mostly the same one in a row. */
let lastType = '';
let lastTypeJson = false;

/** Whether text with this content type (or none, for a request body that starts like JSON) is JSON. */
export function isJsonText(contentType: unknown, body: unknown): boolean {
  if (typeof contentType === 'string') {
    if (contentType !== lastType) {
      lastType = contentType;
      lastTypeJson = JSON_TYPE.test(contentType);
    }
    return lastTypeJson;
  }
  if (typeof body !== 'string') return false;
  const first = body.trimStart()[0];
  return first === '{' || first === '[';
}

const isStream = (body: unknown): boolean =>
  body === STREAMED || (typeof body === 'object' && body !== null && typeof (body as { pipe?: unknown }).pipe === 'function');

/** What an entry shows for a body decided when it was captured (a size, a stream), as opposed to one read later. */
class Shown {
  constructor(readonly value: unknown) {}
}

/**
 * One body as captured: the body itself, by reference, when it is small JSON text or a parsed
 * body (read and redacted when someone reads the entry); else what the entry will show for it.
 * A body whose entry could only ever show its size (too large, not JSON, a stream) is reduced to
 * that marker at once: keeping the reference until a reader asks would hold every archive, state
 * file and download stream sent in the last `UNDERSTUDY_JOURNAL_SIZE` requests in memory (the
 * soak of issue 22 saw the journal's share of RSS grow that way).
 */
export function captureBody(body: unknown, json: boolean, rules: BodyRules): unknown {
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    const length = typeof body === 'string' ? body.length : body.byteLength;
    return !json || length > MAX_KEPT_BYTES ? new Shown(journalBody(body, rules, json)) : body;
  }
  return isStream(body) ? new Shown(journalBody(body, rules, json)) : body;
}

/** What a body of a route that carries secrets is captured as: a marker, never the body (one for all: entries keep it). */
const SECRET = new Shown(SECRET_BODY);
export const secretBody = (): unknown => SECRET;

/** What an entry shows for a body the byte budget dropped: its metadata stays, its bodies go. */
export const DROPPED_BODY = '[dropped: journal body budget]';

/** A captured body (see {@link captureBody}) as its entry shows it, redacted. */
export function shownBody(kept: unknown, json: boolean, rules: BodyRules): unknown {
  return kept instanceof Shown ? kept.value : journalBody(kept, rules, json);
}

/**
 * About how many bytes keeping a captured body until it is read holds in memory: none for one
 * reduced to its marker; for a parsed body, its size on the wire (`wireBytes`) when known.
 */
export function heldBytes(kept: unknown, wireBytes: number): number {
  if (kept instanceof Shown || kept === null || kept === undefined) return 0;
  if (typeof kept === 'string') return kept.length;
  if (Buffer.isBuffer(kept)) return kept.byteLength;
  return typeof kept === 'object' ? wireBytes : 0;
}
