import type { SecretsContext } from '../context.js';

/** Mounts every server has, outside the mount tables (the router serves them itself). */
const BUILT_IN_MOUNTS = ['sys/', 'identity/', 'auth/token/'];

/** An auth or secrets mount a path falls in, as the quota manager names it (`auth/approle/`, `kv/`). */
export interface QuotaMount {
  path: string;
  /** The auth method's type, for auth mounts; role quotas need one that resolves roles. */
  authType?: string;
}

/** The mount `path` falls in, or undefined when it falls in none. */
export function quotaMountOf(context: SecretsContext, path: string): QuotaMount | undefined {
  const full = `${path.replace(/\/+$/, '')}/`;
  const builtIn = BUILT_IN_MOUNTS.find((prefix) => full.startsWith(prefix));
  if (builtIn) return builtIn === 'auth/token/' ? { path: builtIn, authType: 'token' } : { path: builtIn };
  if (path.startsWith('auth/')) {
    const method = context.authMounts.longestPrefix(path.slice('auth/'.length).replace(/\/+$/, ''));
    return method ? { path: `auth/${method.path}`, authType: method.type } : undefined;
  }
  const mount = context.mounts.longestPrefix(path.replace(/\/+$/, ''));
  return mount ? { path: mount.path } : undefined;
}
