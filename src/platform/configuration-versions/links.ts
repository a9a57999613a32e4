import { secretToken } from '../../core/ids.js';
import { sha256Hex } from '../../core/crypto.js';

/** Where run objects live outside `/api/v2`: configuration uploads and run logs (self-authorizing links). */
export const RUN_OBJECT_PREFIX = '/_archivist/v1/runs';

/** How long a configuration version's upload link works (virtual clock). */
export const UPLOAD_LINK_TTL_MS = 10 * 60 * 1000;

export function newUploadSecret(): { secret: string; hash: string } {
  const secret = secretToken();
  return { secret, hash: sha256Hex(secret) };
}

export const uploadPath = (configurationVersionId: string, secret: string) =>
  `${RUN_OBJECT_PREFIX}/upload/${configurationVersionId}.${secret}`;

/** `<id>.<secret>` of an upload path, or null when it has another shape. */
export function readUploadToken(token: string): { id: string; secret: string } | null {
  const [id, secret, extra] = token.split('.');
  return id && secret && extra === undefined ? { id, secret } : null;
}
