import { redactUrl } from '../../core/redact.js';
import { captureBody, heldBytes, secretBody, shownBody } from './capture.js';
import type { FaultMark, JournalRecord } from './journal.js';

const isSecrets = (path: string) => path === '/v1' || path.startsWith('/v1/');

/**
 * A request the harness watches, from its arrival to its answer, and then its journal entry: one
 * object per request, filled in as the request goes (so the journal adds no closures and no copies
 * to a request nobody inspects). What could hold a secret is worked out only when read: the URL is
 * kept as sent and redacted the first time its path or query is asked for; the bodies are kept by
 * reference and parsed and redacted the first time someone reads the entry. Nothing leaves the
 * journal (list, stream, count filters) except through those redacting reads.
 */
export class WatchedRequest implements JournalRecord {
  requestId = '';
  status: number | null = null;
  durationMs = 0;
  subject: string | null = null;
  keptBytes = 0;
  fault: FaultMark | null = null;
  /** Recorded already (a dropped or held connection has no onResponse). */
  done = false;
  /** A route whose bodies are secrets (KV, transit export, wrapping, state): neither body is kept. */
  secretBodies = false;
  /** The response body as sent (see `captureBody`), and whether it is to be read as JSON. */
  responseBody: unknown = null;
  responseJson = false;
  private requestBody: unknown = null;
  private requestJson = false;
  private redactedPath: string | undefined;
  private redactedQuery = '';
  private redactedBodies: { request: unknown; response: unknown } | undefined;

  constructor(
    readonly id: number,
    /** The URL as sent: never shown; `path` and `query` are its redacted parts. */
    private readonly url: string,
    /** The path as sent (without the query), for choosing rules; never shown. */
    readonly rawPath: string,
    readonly method: string,
    readonly timeMs: number,
    readonly virtualMs: number,
  ) {}

  /** The path, its credential segments redacted (a self-authorizing link carries one). */
  get path(): string {
    if (this.redactedPath === undefined) this.redact();
    return this.redactedPath as string;
  }

  /** The query string after `?`, secret parameters redacted; empty when there is none. */
  get query(): string {
    if (this.redactedPath === undefined) this.redact();
    return this.redactedQuery;
  }

  private redact(): void {
    const url = redactUrl(this.url);
    const mark = url.indexOf('?');
    this.redactedPath = mark === -1 ? url : url.slice(0, mark);
    this.redactedQuery = mark === -1 ? '' : url.slice(mark + 1);
  }

  /** Whether bodies are API JSON (object links carry archives and state files, never read as JSON). */
  get carriesJson(): boolean {
    return !this.rawPath.startsWith('/_archivist/');
  }

  /** Keeps the request body (parsed by now) by reference; `wireBytes` is its `Content-Length`. */
  captureRequest(body: unknown, json: boolean, wireBytes: number): void {
    if (this.secretBodies) {
      this.requestBody = this.responseBody = secretBody();
      return;
    }
    this.requestJson = json;
    this.requestBody = captureBody(body, json, this.rules);
    this.responseBody = captureBody(this.responseBody, this.responseJson, this.rules);
    this.keptBytes = heldBytes(this.requestBody, wireBytes) + heldBytes(this.responseBody, 0);
  }

  bodies(): { request: unknown; response: unknown } {
    this.redactedBodies ??= {
      request: shownBody(this.requestBody, this.requestJson, this.rules),
      response: shownBody(this.responseBody, this.responseJson, this.rules),
    };
    return this.redactedBodies;
  }

  releaseBodies(): void {
    this.requestBody = null;
    this.responseBody = null;
    this.redactedBodies = undefined;
  }

  private get rules(): 'secrets' | 'platform' {
    return isSecrets(this.rawPath) ? 'secrets' : 'platform';
  }
}
