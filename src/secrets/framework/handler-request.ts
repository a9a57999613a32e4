import type { TokenEntry } from '../tokens/token-store.js';
import type { MountStorage } from '../storage/mount-storage.js';
import type { FieldData } from './fields.js';
import type { HandlerRequest, MountInfo, Operation } from './types.js';

/** What a routed request reads from the request it came from only when a handler asks. */
export interface RequestSource {
  readonly clientCertificate?: Buffer | undefined;
  readonly origin?: string | undefined;
}

/** The parts of a handler request the router decides; the rest is read from the source when asked. */
export type RoutedParts = Omit<HandlerRequest, 'clientCertificate' | 'origin'>;

/**
 * The request a handler sees. A class, not an object literal with getters: a literal's getters are
 * new closures on every request, so V8 gives every such object a hidden class of its own, made in
 * the old generation. Those dead hidden classes kept each request's whole object graph alive
 * through the next young-generation collection (their closures hold the router's scope), so every
 * request of the secrets API was promoted: about 1.3 MB a collection under load and a full
 * collection every few hundred milliseconds, a fifth of a transit encryption's CPU. Here the two
 * getters live once on the prototype.
 */
export class RoutedRequest implements HandlerRequest {
  readonly operation: Operation;
  readonly path: string;
  readonly params: Record<string, string>;
  readonly fields: FieldData;
  readonly data: Record<string, unknown>;
  readonly token: TokenEntry | null;
  readonly clientAddress?: string | undefined;
  readonly wrapTtl: number;
  readonly mount: MountInfo;
  readonly storage: MountStorage;

  constructor(
    parts: RoutedParts,
    /** Passed on as asked for: the logical request reads the TLS peer certificate and builds its origin only then. */
    private readonly source: RequestSource,
  ) {
    this.operation = parts.operation;
    this.path = parts.path;
    this.params = parts.params;
    this.fields = parts.fields;
    this.data = parts.data;
    this.token = parts.token;
    this.clientAddress = parts.clientAddress;
    this.wrapTtl = parts.wrapTtl;
    this.mount = parts.mount;
    this.storage = parts.storage;
  }

  get clientCertificate(): Buffer | undefined {
    return this.source.clientCertificate;
  }

  get origin(): string | undefined {
    return this.source.origin;
  }
}

/**
 * `request` with other fields (and data): what `{ ...request, fields }` meant, for a handler
 * that reads a request under other names. A spread alone copies own properties only, so a routed
 * request's certificate and origin, read through its prototype, would be lost; here they are still
 * read from `request` when asked.
 */
export function withFields(request: HandlerRequest, fields: FieldData, data: Record<string, unknown> = request.data): HandlerRequest {
  return new RoutedRequest({ ...request, fields, data }, request);
}
