import type { PathSpec } from '../framework/types.js';
import type { SecretsContext } from '../context.js';

/** `sys/policy…` and `sys/policies/acl…`: ACL policies (to come with tokens and policies). */
export function policyPaths(_context: SecretsContext): PathSpec[] {
  return [];
}
