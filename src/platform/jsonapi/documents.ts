import type { FastifyReply, FastifyRequest } from 'fastify';
import { Included } from './include.js';
import { paginationLinks, paginationMeta, type PageOf } from './pagination.js';
import { MEDIA_TYPE, type ListDocument, type ResourceObject, type SingleDocument } from './types.js';

/** The absolute URL of a request, for list links. */
export function requestUrl(request: FastifyRequest): URL {
  return new URL(request.url, `${request.protocol}://${request.host}`);
}

/** Origins already worked out, by `protocol://host` as the request gave them (few distinct ones). */
const origins = new Map<string, string>();
const ORIGINS_KEPT = 64;

/**
 * `scheme://host` of a request, as `requestUrl(request).origin` gives it, without parsing a URL
 * per request: every workspace document needs it, and the origin depends only on the protocol
 * and the Host header.
 */
export function requestOrigin(request: FastifyRequest): string {
  const url = request.url;
  // Anything but a plain path (`//host/…` and `/\\host/…` name a host of their own) is parsed in full.
  if (url[0] !== '/' || url[1] === '/' || url[1] === '\\') return requestUrl(request).origin;
  const base = `${request.protocol}://${request.host}`;
  let origin = origins.get(base);
  if (origin === undefined) {
    origin = new URL('/', base).origin;
    // Host headers come from clients: the map stays small whatever they send.
    if (origins.size >= ORIGINS_KEPT) origins.clear();
    origins.set(base, origin);
  }
  return origin;
}

export function singleDocument(data: ResourceObject, included?: Included): SingleDocument {
  const extra = included?.toArray();
  return extra ? { data, included: extra } : { data };
}

export function listDocument(
  request: FastifyRequest,
  page: PageOf<ResourceObject>,
  options: { included?: Included; meta?: Record<string, unknown> } = {},
): ListDocument {
  const pagination = paginationMeta(page.page, page.total);
  const document: ListDocument = {
    data: page.items,
    links: paginationLinks(requestUrl(request), pagination),
    meta: { ...options.meta, pagination },
  };
  const extra = options.included?.toArray();
  if (extra) document.included = extra;
  return document;
}

/** Sends a JSON:API document with the platform's media type. */
export function sendDocument(reply: FastifyReply, status: number, document: object): FastifyReply {
  // JSON:API forbids media type parameters. Fastify appends `; charset=utf-8` to a JSON media type
  // only when it serializes with its own serializer, so the reply gets one of its own. The body
  // goes out as a string, not a Buffer: Node then writes headers and body in one plain write
  // instead of a two-part writev, which was most of the socket-write cost of a small document.
  return reply.code(status).header('content-type', MEDIA_TYPE).serializer(JSON.stringify).send(document);
}

const asSerialized = (text: string): string => text;

/** Sends a JSON:API document serialized already (a kept one), exactly as `sendDocument` sends it. */
export function sendSerializedDocument(reply: FastifyReply, status: number, text: string): FastifyReply {
  // A string payload with a serializer set goes through the serializer (here unchanged), so the
  // content type keeps no charset, as in `sendDocument`.
  return reply.code(status).header('content-type', MEDIA_TYPE).serializer(asSerialized).send(text);
}

/** 204 with no body, as the spec's relationship and delete endpoints answer. */
export function sendNoContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}
