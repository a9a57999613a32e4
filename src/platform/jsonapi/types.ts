/** Wire shapes of JSON:API documents as the platform API writes them. */
export interface ResourceIdentifier {
  id: string;
  type: string;
}

export interface Relationship {
  data?: ResourceIdentifier | ResourceIdentifier[] | null;
  links?: { related?: string; self?: string };
}

export interface ResourceObject {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, Relationship>;
  links?: Record<string, string>;
  meta?: Record<string, unknown>;
}

export interface PaginationMeta {
  'current-page': number;
  'page-size': number;
  'prev-page': number | null;
  'next-page': number | null;
  'total-pages': number;
  'total-count': number;
}

export interface ListLinks {
  self: string;
  first: string;
  prev: string | null;
  next: string | null;
  last: string;
}

export interface SingleDocument {
  data: ResourceObject;
  included?: ResourceObject[];
}

export interface ListDocument {
  data: ResourceObject[];
  included?: ResourceObject[];
  links: ListLinks;
  meta: { pagination: PaginationMeta } & Record<string, unknown>;
}

export const MEDIA_TYPE = 'application/vnd.api+json';
