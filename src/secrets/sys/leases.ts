import type { PathSpec } from '../framework/types.js';
import type { SecretsContext } from '../context.js';

/** `sys/leases/…`: lease lookup, renewal and revocation (to come with leases). */
export function leasePaths(_context: SecretsContext): PathSpec[] {
  return [];
}
