import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { pooledRandomBytes } from './random-pool.js';

/**
 * The mark on a hidden value kept sealed in a column that held it in clear before (an HMAC key, a
 * password, a sensitive variable): a value without it was written by an older version.
 */
export const SEALED_MARK = 'sealed:v1:';

/**
 * Secrets the server must both recognise and show again (registry upload ids, module webhook
 * secrets) are kept as two values: a keyed digest, which lookups compare, and a sealed copy
 * (AES-256-GCM), which is opened only to render the link again. Both keys come from one server
 * key made once and kept in the store (`server_keys`).
 *
 * The threat model, stated plainly: the server key lives in the same store, so whoever holds the
 * whole store file can recompute everything, as they could read any other row. What this buys is
 * that no secret is readable or greppable in a row, a table dump, a query log or a copied
 * snapshot table, and that a stored value pasted into a URL grants nothing: the digest is not the
 * secret, and lookups never compare plain secrets. State and configuration upload secrets, shown
 * once, need no sealed copy and keep a plain SHA-256.
 */
export class SecretsAtRest {
  private cached: { master: Buffer; digest: Buffer; seal: Buffer } | undefined;

  /** `serverKey` is read on each use, so a reset or a restored snapshot brings its own key along. */
  constructor(private readonly serverKey: () => Buffer) {}

  private keys(): { digest: Buffer; seal: Buffer } {
    const master = this.serverKey();
    if (!this.cached?.master.equals(master)) {
      const derive = (purpose: string) => createHmac('sha256', master).update(purpose).digest();
      this.cached = { master, digest: derive('understudy digest'), seal: derive('understudy seal') };
    }
    return this.cached;
  }

  /** The value lookups go by: HMAC-SHA256 of the secret under the server key. */
  digest(secret: string): string {
    return createHmac('sha256', this.keys().digest).update(secret).digest('base64url');
  }

  /** The secret encrypted for display later: `iv.tag.ciphertext`, base64url each. */
  seal(secret: string): string {
    const iv = pooledRandomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys().seal, iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url')).join('.');
  }

  /** The secret again, or null when the sealed value was made under another key or altered. */
  open(sealed: string): string | null {
    const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    if (!iv || !tag || !body) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.keys().seal, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }

  /** `secret` sealed with the mark, for a column whose older rows hold values in clear. */
  sealMarked(secret: string): string {
    return SEALED_MARK + this.seal(secret);
  }

  /**
   * The value of a marked column: a marked value opened (null when it does not open), any other
   * value as it is, since an older version wrote it in clear.
   */
  openMarked(stored: string): string | null {
    return stored.startsWith(SEALED_MARK) ? this.open(stored.slice(SEALED_MARK.length)) : stored;
  }
}
