import type { FastifyReply, FastifyRequest } from 'fastify';
import { Included } from './include.js';
import { paginationLinks, paginationMeta, type PageOf } from './pagination.js';
import { MEDIA_TYPE, type ListDocument, type ResourceObject, type SingleDocument } from './types.js';

/** The absolute URL of a request, for list links. */
export function requestUrl(request: FastifyRequest): URL {
  return new URL(request.url, `${request.protocol}://${request.host}`);
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
  // Serialized here and sent as a Buffer: JSON:API forbids media type parameters, and Fastify
  // would otherwise append `; charset=utf-8`.
  return reply
    .code(status)
    .header('content-type', MEDIA_TYPE)
    .send(Buffer.from(JSON.stringify(document)));
}

/** 204 with no body, as the spec's relationship and delete endpoints answer. */
export function sendNoContent(reply: FastifyReply): FastifyReply {
  return reply.code(204).send();
}
