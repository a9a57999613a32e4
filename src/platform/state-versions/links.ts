import type { Clock } from '../../core/clock.js';
import { secretToken } from '../../core/ids.js';
import { sha256Hex } from '../../core/crypto.js';
import { DownloadLinks } from '../registry/links.js';

/** Where the upload and download links of state live (the real service's object store, "archivist"). */
export const OBJECT_PREFIX = '/_archivist/v1/object';

export type StateKind = 'state' | 'json';

/** A fresh one-time upload secret and the hash the version row keeps of it. */
export function newUploadSecret(): { secret: string; hash: string } {
  const secret = secretToken();
  return { secret, hash: sha256Hex(secret) };
}

export function uploadPath(stateVersionId: string, kind: StateKind, secret: string): string {
  return `${OBJECT_PREFIX}/upload/${stateVersionId}.${kind}.${secret}`;
}

/** `<id>.<kind>.<secret>` of an upload path, or null when it has another shape. */
export function readUploadToken(token: string): { stateVersionId: string; kind: StateKind; secret: string } | null {
  const [stateVersionId, kind, secret, extra] = token.split('.');
  if (!stateVersionId || !secret || extra !== undefined || (kind !== 'state' && kind !== 'json')) return null;
  return { stateVersionId, kind, secret };
}

/**
 * Self-authorizing, short-lived download links: the state version, what to download, expiry,
 * signature. One per server (made in the door, services.ts), so its key is: the API signs, the
 * object routes verify.
 */
export class StateDownloadLinks {
  private readonly signer: DownloadLinks;

  constructor(clock: Clock) {
    this.signer = new DownloadLinks(clock);
  }

  path(id: string, kind: StateKind): string {
    return `${OBJECT_PREFIX}/download/${this.signer.token(`${id}~${kind}`)}`;
  }

  verify(token: string): { stateVersionId: string; kind: StateKind } | null {
    const [stateVersionId, kind] = (this.signer.verify(token) ?? '').split('~');
    return stateVersionId && (kind === 'state' || kind === 'json') ? { stateVersionId, kind } : null;
  }
}
