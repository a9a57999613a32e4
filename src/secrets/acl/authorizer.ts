import { ApiError } from '../../core/errors.js';
import type { Operation } from '../framework/types.js';
import type { TokenEntry } from '../tokens/token-store.js';

/** The 403 a missing, unknown or expired token gets. */
export const PERMISSION_DENIED = new ApiError(403, 'permission denied', { messages: ['permission denied'] });

/** The 403 a valid token gets when its policies refuse (the multierror text real clients see). */
export const POLICY_DENIED = new ApiError(403, 'permission denied', { messages: ['1 error occurred:\n\t* permission denied\n\n'] });

/** Paths the built-in `default` policy opens to every token. */
const DEFAULT_POLICY: Record<string, Operation[]> = {
  'auth/token/lookup-self': ['read', 'update'],
  'auth/token/renew-self': ['update'],
  'auth/token/revoke-self': ['update'],
  'sys/capabilities-self': ['update'],
  'sys/renew': ['update'],
  'sys/leases/renew': ['update'],
  'sys/leases/lookup': ['update'],
};

/**
 * Decides whether `token` may perform `operation` on `path`. The root policy allows everything;
 * the ACL policy language (named policies, globs, priorities) lands with the tokens-and-policies work.
 */
export function authorize(token: TokenEntry, path: string, operation: Operation, sudo: boolean): void {
  if (token.policies.includes('root')) return;
  const allowed = token.policies.includes('default') ? DEFAULT_POLICY[path.replace(/\/$/, '')] : undefined;
  if (!sudo && allowed?.includes(operation)) return;
  throw POLICY_DENIED;
}
