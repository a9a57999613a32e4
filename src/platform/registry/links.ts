import { createHmac, randomBytes } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { safeEqual } from '../../core/crypto.js';

/** How long a download link works: long enough for `terraform init`, short enough not to be a credential. */
export const DOWNLOAD_LINK_TTL_MS = 5 * 60 * 1000;

/**
 * Self-authorising archive links. go-getter fetches the `X-Terraform-Get` URL without the
 * registry token, so the link carries its own proof: version id, expiry, and an HMAC over both
 * with a key that lives only in this process (links die with it, as short-lived links should).
 */
export class DownloadLinks {
  private readonly key = randomBytes(32);

  constructor(private readonly clock: Clock) {}

  private sign(versionId: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${versionId}.${expires}`).digest('base64url');
  }

  /** The path segment naming the archive: `<version id>.<expiry ms>.<signature>`. */
  token(versionId: string): string {
    const expires = this.clock.nowMs() + DOWNLOAD_LINK_TTL_MS;
    return `${versionId}.${expires}.${this.sign(versionId, expires)}`;
  }

  /** The version id the token grants, or null when it is forged or expired. */
  verify(token: string): string | null {
    const [versionId, expiresText, signature] = token.split('.');
    if (!versionId || !expiresText || !signature || !/^\d+$/.test(expiresText)) return null;
    const expires = Number(expiresText);
    if (!safeEqual(signature, this.sign(versionId, expires))) return null;
    return expires > this.clock.nowMs() ? versionId : null;
  }
}
