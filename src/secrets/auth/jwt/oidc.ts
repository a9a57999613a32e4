import type { SecretsContext } from '../../context.js';
import type { PathSpec } from '../../framework/types.js';
import type { Validators } from './validators.js';

/** The OIDC browser flow: `oidc/auth_url` and `oidc/callback`. */
export function oidcPaths(_context: SecretsContext, _validators: Validators): PathSpec[] {
  return [];
}
