import { base62 } from '../../../core/ids.js';
import type { UsernameShape } from '../../../adapters/sql/plugin.js';

/**
 * A username in the real plugins' default form, e.g. PostgreSQL's
 * `v-<display 8>-<role 8>-<random 20>-<unix time>` cut to 63 characters.
 */
export function generateUsername(shape: UsernameShape, displayName: string, roleName: string, nowMs: number): string {
  const parts = ['v'];
  if (shape.displayName > 0) parts.push(displayName.slice(0, shape.displayName));
  parts.push(roleName.slice(0, shape.role), base62(20));
  if (shape.unixTime) parts.push(String(Math.floor(nowMs / 1000)));
  return parts.join('-').slice(0, shape.maxLength);
}

const pad = (value: number) => String(value).padStart(2, '0');

/** `{{expiration}}`: Go's `2006-01-02 15:04:05-0700`, in UTC. */
export function formatExpiration(at: Date): string {
  return `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())}+0000`;
}

/** `allowed_roles` matching: exact names, `*`, and globs with `*`. */
export function roleAllowed(allowed: readonly string[], role: string): boolean {
  return allowed.some((pattern) => {
    if (pattern === '*' || pattern === role) return true;
    if (!pattern.includes('*')) return false;
    const regex = new RegExp(
      `^${pattern
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
    );
    return regex.test(role);
  });
}
