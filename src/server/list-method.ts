import { maxHeaderSize } from 'node:http';

/**
 * Header set on requests that arrived with the `LIST` method. Node's HTTP parser refuses `LIST`,
 * so the connection layer rewrites such requests to `GET` and marks them with this header; the
 * secrets layer then treats them exactly like `GET ?list=true`.
 */
export const LIST_MARKER_HEADER = 'x-understudy-list-method';

/**
 * The method a request was sent with: `LIST` for a rewritten request, else the parsed method.
 * (The request itself keeps `GET`: routing and body handling rely on it.)
 */
export function clientMethod(request: { method?: string | undefined; headers: Record<string, unknown> }): string | undefined {
  return request.headers[LIST_MARKER_HEADER] === undefined ? request.method : 'LIST';
}

/**
 * How many bytes of one header block (or one chunk-size line) the rewriter holds back before it
 * gives up and passes the connection through. Above Node's own header limit, so an oversized
 * header block still reaches Node's parser, which answers it with its usual 431.
 */
export const DEFAULT_HOLD_LIMIT = Math.max(64 * 1024, 2 * maxHeaderSize);

const CR = 0x0d;
const LF = 0x0a;
const EMPTY = Buffer.alloc(0);
const GET = Buffer.from('GET', 'latin1');

const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
/** The header names that decide framing or must be dropped, by length (no two share one). */
const WANTED_BY_LENGTH: (string | undefined)[] = [];
for (const name of ['content-length', 'transfer-encoding', 'upgrade', 'connection', LIST_MARKER_HEADER])
  WANTED_BY_LENGTH[name.length] = name;

const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ +\S+ +HTTP\/\d\.\d$/;
const CHUNK_SIZE = /^([0-9A-Fa-f]+)[ \t]*(?:;.*)?$/;
const DIGITS = /^\d+$/;
/** Optional whitespace around a field value is spaces and tabs only (not what String#trim removes). */
const OWS = /^[ \t]+|[ \t]+$/g;

/** How the body after a header block is delimited. `raw`: the rest of the connection is opaque. */
type Framing = { kind: 'none' } | { kind: 'length'; length: number } | { kind: 'chunked' } | { kind: 'raw' } | { kind: 'drop' };
const NO_BODY: Framing = { kind: 'none' };
const CHUNKED: Framing = { kind: 'chunked' };
const RAW: Framing = { kind: 'raw' };
/**
 * After an Upgrade request nothing on this server takes the connection over, and Node's parser,
 * reading a socket natively, sees no further request on it; the bytes after the head are dropped
 * here too, so this layer never lets through a request Node alone would not have seen.
 */
const DROP: Framing = { kind: 'drop' };

interface HeadAnalysis {
  /** Bytes to send instead of the header block; `undefined` forwards it unchanged (no copy). */
  replacement: Buffer | undefined;
  framing: Framing;
}

type State =
  | 'head' // before or inside a header block; an incomplete block is held back
  | 'body' // inside a Content-Length body
  | 'chunk-size' // expecting a chunk-size line
  | 'chunk-data' // inside a chunk's data
  | 'chunk-end' // expecting the CRLF after a chunk's data
  | 'trailers' // after the last chunk: trailer lines up to an empty line
  | 'raw' // no longer tracking: everything passes through unchanged
  | 'drop'; // after an Upgrade request: nothing more reaches the parser

/**
 * Rewrites `LIST` requests on an HTTP/1.x connection into `GET` + {@link LIST_MARKER_HEADER},
 * so Node's parser (which has no `LIST`) accepts them, and removes any copy of the marker a
 * client sent itself.
 *
 * Why a byte-level rewrite: the method is refused inside llhttp before any JavaScript sees the
 * request, so the only place to change it is the byte stream between the socket and the parser.
 * To find where each request line starts, the rewriter follows the message framing (header
 * block, Content-Length or chunked body, trailers). Body bytes and unchanged header blocks are
 * forwarded as slices of the chunk they arrived in. Anything it cannot follow (malformed input,
 * Upgrade/CONNECT) switches it to pass-through for the rest of the connection, so Node's parser
 * sees exactly what the client sent and answers as it always does.
 */
export class ListMethodRewriter {
  private state: State = 'head';
  /** Bytes left in the current Content-Length body or chunk. */
  private remaining = 0;
  /** The partial line in the chunked states (latin1; these bytes are already forwarded). */
  private line = '';
  /** An incomplete header block, not yet forwarded. */
  private readonly held = new HeldBytes();
  /** During `write`: start of the bytes of the current chunk that pass unchanged and are not yet emitted. */
  private passFrom = 0;
  /** Whether the request line of the held block has been checked (see `looksMalformed`). */
  private requestLineChecked = false;

  constructor(
    private readonly emit: (bytes: Buffer) => void,
    private readonly holdLimit = DEFAULT_HOLD_LIMIT,
  ) {}

  /** Feeds bytes read from the client; emits them, rewritten where needed, in order. */
  write(chunk: Buffer): void {
    this.passFrom = 0;
    let position = 0;
    while (position < chunk.length) position = this.step(chunk, position);
    this.emitPassThrough(chunk, chunk.length);
  }

  /** The client finished sending: whatever is held (an incomplete request) goes to the parser as is. */
  end(): void {
    if (this.held.length > 0) this.emit(this.held.take());
    this.state = 'raw';
  }

  private step(chunk: Buffer, position: number): number {
    switch (this.state) {
      case 'raw':
        return chunk.length;
      case 'drop':
        this.emitPassThrough(chunk, position);
        this.passFrom = chunk.length;
        return chunk.length;
      case 'body':
      case 'chunk-data':
        return this.skipBody(chunk, position);
      case 'chunk-size':
      case 'chunk-end':
      case 'trailers':
        return this.readLine(chunk, position);
      case 'head':
        return this.held.length > 0 ? this.continueHead(chunk) : this.startHead(chunk, position);
    }
  }

  private emitPassThrough(chunk: Buffer, upTo: number): void {
    if (upTo <= this.passFrom) return;
    this.emit(this.passFrom === 0 && upTo === chunk.length ? chunk : chunk.subarray(this.passFrom, upTo));
    this.passFrom = upTo;
  }

  private giveUp(): void {
    this.state = 'raw';
  }

  private skipBody(chunk: Buffer, position: number): number {
    const taken = Math.min(this.remaining, chunk.length - position);
    this.remaining -= taken;
    if (this.remaining === 0) this.state = this.state === 'body' ? 'head' : 'chunk-end';
    return position + taken;
  }

  /** A header block starting in this chunk (nothing held). */
  private startHead(chunk: Buffer, position: number): number {
    // Like llhttp, skip empty lines before a request line; they pass through.
    while (position < chunk.length && (chunk[position] === CR || chunk[position] === LF)) position++;
    if (position === chunk.length) return position;

    const end = chunk.indexOf(HEAD_END, position);
    if (end !== -1) {
      const blockEnd = end + HEAD_END.length;
      if (blockEnd - position > this.holdLimit) return this.giveUpOnOversized(chunk, position);
      this.finishHead(chunk, position, blockEnd, chunk, blockEnd);
      return blockEnd;
    }
    if (chunk.length - position > this.holdLimit) return this.giveUpOnOversized(chunk, position);
    this.requestLineChecked = false;
    if (this.looksMalformed(chunk, position, position)) {
      this.giveUp();
      return position;
    }
    this.emitPassThrough(chunk, position);
    this.held.append(chunk.subarray(position));
    this.passFrom = chunk.length;
    return chunk.length;
  }

  /** More bytes of a held header block; always at the start of a chunk. */
  private continueHead(chunk: Buffer): number {
    const previous = this.held.length;
    this.held.append(chunk.subarray(0, this.holdLimit + HEAD_END.length - previous));
    const bytes = this.held.view();
    const end = bytes.indexOf(HEAD_END, Math.max(0, previous - HEAD_END.length + 1));
    const blockEnd = end + HEAD_END.length;

    if (end !== -1 && blockEnd <= this.holdLimit) {
      const consumed = blockEnd - previous;
      this.finishHead(this.held.take(), 0, blockEnd, chunk, consumed);
      return consumed;
    }
    const oversized = bytes.length > this.holdLimit;
    if (!oversized && !this.looksMalformed(bytes, 0, previous)) {
      this.passFrom = chunk.length;
      return chunk.length;
    }
    // Forward what was held before this chunk; the whole chunk then passes through after it.
    const held = this.held.take().subarray(0, previous);
    if (oversized && startsWithList(held, 0)) {
      this.emit(GET);
      this.emit(held.subarray('LIST'.length));
    } else {
      this.emit(held);
    }
    this.giveUp();
    return 0;
  }

  /**
   * Passes an oversized header block through, but as `GET` if it is a `LIST`: Node then answers
   * it as too large (431), as it would any other method, rather than as a bad method (400).
   */
  private giveUpOnOversized(chunk: Buffer, position: number): number {
    if (startsWithList(chunk, position)) {
      this.emitPassThrough(chunk, position);
      this.emit(GET);
      this.passFrom = position + 'LIST'.length;
    }
    this.giveUp();
    return position;
  }

  /**
   * A complete header block, `bytes[start, end)`: forward it (rewritten if needed) and set up for
   * its body. A block inside the current chunk that needs no change stays in the pass-through
   * range (no copy); a held block is always emitted. `after` is where the bytes after the block
   * start in `chunk`.
   */
  private finishHead(bytes: Buffer, start: number, end: number, chunk: Buffer, after: number): void {
    const analysis = analyseHead(bytes, start, end);
    const replacement = analysis?.replacement;
    const held = bytes !== chunk;
    if (held || replacement) {
      if (!held) this.emitPassThrough(chunk, start);
      this.emit(replacement ?? bytes.subarray(start, end));
      this.passFrom = after;
    }
    // Unparseable: from here on Node's parser sees the bytes exactly as sent, and answers them.
    if (analysis) this.enterBody(analysis.framing);
    else this.giveUp();
  }

  /**
   * Whether an incomplete header block can already be seen to be one Node refuses (a bare LF
   * line ending, or a malformed request line). Passing it through at once lets Node answer 400
   * now, rather than the rewriter waiting for a block end that will never come. Only line feeds
   * from `scanFrom` on are new; earlier ones were checked by an earlier call.
   */
  private looksMalformed(bytes: Buffer, blockStart: number, scanFrom: number): boolean {
    for (let lineFeed = bytes.indexOf(LF, scanFrom); lineFeed !== -1; lineFeed = bytes.indexOf(LF, lineFeed + 1)) {
      if (lineFeed === blockStart || bytes[lineFeed - 1] !== CR) return true;
      if (!this.requestLineChecked) {
        this.requestLineChecked = true;
        if (!REQUEST_LINE.test(bytes.toString('latin1', blockStart, lineFeed - 1))) return true;
      }
    }
    return false;
  }

  private enterBody(framing: Framing): void {
    switch (framing.kind) {
      case 'none':
        this.state = 'head';
        return;
      case 'length':
        this.remaining = framing.length;
        this.state = framing.length > 0 ? 'body' : 'head';
        return;
      case 'chunked':
        this.state = 'chunk-size';
        return;
      case 'raw':
        this.giveUp();
        return;
      case 'drop':
        this.state = 'drop';
    }
  }

  /** Chunked-body lines: the bytes pass through; only their meaning is tracked. */
  private readLine(chunk: Buffer, position: number): number {
    const lineFeed = chunk.indexOf(LF, position);
    const end = lineFeed === -1 ? chunk.length : lineFeed + 1;
    if (this.line.length + (end - position) > this.holdLimit) {
      this.giveUp();
      return end;
    }
    this.line += chunk.toString('latin1', position, end);
    if (lineFeed === -1) return end;
    const line = this.line;
    this.line = '';
    this.endOfLine(line);
    return end;
  }

  private endOfLine(line: string): void {
    if (!line.endsWith('\r\n')) return this.giveUp();
    const text = line.slice(0, -2);
    switch (this.state) {
      case 'chunk-size': {
        const digits = CHUNK_SIZE.exec(text)?.[1];
        const size = digits === undefined ? NaN : parseInt(digits, 16);
        if (!Number.isSafeInteger(size)) return this.giveUp();
        this.remaining = size;
        this.state = size === 0 ? 'trailers' : 'chunk-data';
        return;
      }
      case 'chunk-end':
        if (text !== '') return this.giveUp();
        this.state = 'chunk-size';
        return;
      case 'trailers':
        if (text === '') this.state = 'head';
        return;
    }
  }
}

/**
 * Reads one header block; `undefined` when it is not something to follow. This runs once for
 * every request, so it decodes the block once and only looks closely at lines whose name could
 * matter (native Buffer calls cost more than the string operations on a short block).
 */
function analyseHead(bytes: Buffer, start: number, end: number): HeadAnalysis | undefined {
  const text = bytes.toString('latin1', start, end);
  if (text.startsWith('CONNECT ') || text.startsWith('PRI ')) {
    // A tunnel or an HTTP/2 preface: the bytes that follow are not HTTP/1 requests.
    return { replacement: undefined, framing: RAW };
  }
  const fields = readFields(text);
  if (!fields) return undefined;
  const framing = framingOf(fields);
  if (!framing) return undefined;
  const isList = text.startsWith('LIST ');
  if (!isList && !fields.markerLines) return { replacement: undefined, framing };
  return { replacement: rebuildHead(text, isList, fields), framing };
}

/** The block with the method `LIST` replaced by `GET` plus the marker, and client-sent markers dropped. */
function rebuildHead(text: string, isList: boolean, fields: HeadFields): Buffer {
  const requestLine = text.slice(0, fields.headersStart);
  let head = isList ? `GET${requestLine.slice('LIST'.length)}${LIST_MARKER_HEADER}: 1\r\n` : requestLine;
  let keptFrom = fields.headersStart;
  for (const [start, end] of fields.markerLines ?? []) {
    head += text.slice(keptFrom, start);
    keptFrom = end;
  }
  return Buffer.from(head + text.slice(keptFrom), 'latin1');
}

/** The fields of one header block that matter here. The lists exist only once a value is seen (most blocks have none). */
interface HeadFields {
  /** Where the line after the request line starts. */
  headersStart: number;
  contentLengths?: string[];
  transferEncodings?: string[];
  upgrade: boolean;
  /** `Connection` values; only read when there is an `Upgrade` field. */
  connection?: string[];
  /** Ranges (CRLF included) of client-sent marker headers, which are dropped. */
  markerLines?: [number, number][];
}

/**
 * The fields that decide framing, and the marker lines, from a block ending in CRLFCRLF. Input
 * Node refuses (bare LF, folding, a line without a colon) need not be recognised: Node closes
 * the connection on it, so the framing no longer matters.
 */
function readFields(text: string): HeadFields | undefined {
  const blockEnd = text.length - 2;
  const headersStart = text.indexOf('\r\n') + 2;
  // The checks an incomplete block gets in `looksMalformed`, so that where a block's end happens to
  // fall (in this read or a later one) never changes what is forwarded: a bare LF anywhere, or a
  // request line Node would refuse, leaves the connection to Node's parser as sent.
  if (text.indexOf('\n') !== headersStart - 1 || !REQUEST_LINE.test(text.slice(0, headersStart - 2))) return undefined;
  const fields: HeadFields = { headersStart, upgrade: false };
  for (let lineStart = headersStart; lineStart < blockEnd;) {
    const lineEnd = text.indexOf('\r\n', lineStart);
    if (text.indexOf('\n', lineStart) !== lineEnd + 1) return undefined;
    const colon = text.indexOf(':', lineStart);
    if (colon === -1 || colon > lineEnd) return undefined;
    // Most lines are skipped on the length of their name alone, without decoding it.
    const wanted = WANTED_BY_LENGTH[colon - lineStart];
    if (wanted !== undefined && text.slice(lineStart, colon).toLowerCase() === wanted) {
      const value = text.slice(colon + 1, lineEnd).replace(OWS, '');
      if (wanted === 'content-length') (fields.contentLengths ??= []).push(value);
      else if (wanted === 'transfer-encoding') (fields.transferEncodings ??= []).push(value);
      else if (wanted === 'upgrade') fields.upgrade = true;
      else if (wanted === 'connection') (fields.connection ??= []).push(value);
      else (fields.markerLines ??= []).push([lineStart, lineEnd + 2]);
    }
    lineStart = lineEnd + 2;
  }
  return fields;
}

function framingOf(fields: HeadFields): Framing | undefined {
  if (fields.upgrade && fields.connection?.some((value) => hasToken(value, 'upgrade'))) return DROP;
  const { contentLengths = [], transferEncodings } = fields;
  if (transferEncodings) {
    // Node refuses Content-Length beside Transfer-Encoding, and a request whose last coding is not chunked.
    const codings = transferEncodings.join(',').split(',');
    const last = codings[codings.length - 1]?.replace(OWS, '').toLowerCase();
    return contentLengths.length === 0 && last === 'chunked' ? CHUNKED : undefined;
  }
  if (contentLengths.length === 0) return NO_BODY;
  const [value] = contentLengths;
  // Node refuses a repeated Content-Length, even with equal values.
  if (contentLengths.length > 1 || value === undefined || !DIGITS.test(value)) return undefined;
  const length = Number(value);
  return Number.isSafeInteger(length) ? { kind: 'length', length } : undefined;
}

function hasToken(value: string, token: string): boolean {
  return value.split(',').some((part) => part.replace(OWS, '').toLowerCase() === token);
}

function startsWithList(bytes: Buffer, at: number): boolean {
  return bytes.length - at >= 5 && bytes.toString('latin1', at, at + 5) === 'LIST ';
}

/** A growable byte buffer for an incomplete header block (amortised appends, no re-copy per chunk). */
class HeldBytes {
  private buffer: Buffer = EMPTY;
  length = 0;

  append(bytes: Buffer): void {
    if (this.length + bytes.length > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(1024, 2 * this.buffer.length, this.length + bytes.length));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    bytes.copy(this.buffer, this.length);
    this.length += bytes.length;
  }

  view(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  /** The held bytes; the holder starts afresh, so the returned view is never overwritten. */
  take(): Buffer {
    const bytes = this.view();
    this.buffer = EMPTY;
    this.length = 0;
    return bytes;
  }
}
