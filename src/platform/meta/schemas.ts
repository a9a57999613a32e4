/** Response schemas of this domain's routes (see ../jsonapi/responses.ts). */
import { noContent, type ResponseTable } from '../jsonapi/responses.js';

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const META_RESPONSES: ResponseTable = {
  'GET /ping': noContent,
};
