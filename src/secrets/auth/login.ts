import type { SecretsContext } from '../context.js';
import type { HandlerRequest, LogicalResponse } from '../framework/types.js';
import type { TokenSettings } from './token-settings.js';

/**
 * The answer to a successful login: a new token from the method's settings, recorded with the
 * login path (`auth/userpass/login/bob`) and named after the mount (`userpass-bob`).
 */
export function loginResponse(
  context: SecretsContext,
  request: HandlerRequest,
  login: { settings: TokenSettings; meta: Record<string, string>; displayName?: string },
): LogicalResponse {
  const mountName = request.mount.path.replace(/^auth\//, '').replace(/\/$/, '').replace(/\//g, '-');
  const { token, ttl, warnings } = context.tokens.issueLogin({
    requestPath: `${request.mount.path}${request.path}`,
    mountConfig: request.mount.config,
    displayName: login.displayName ? `${mountName}-${login.displayName}` : mountName,
    meta: login.meta,
    settings: login.settings,
  });
  return { data: null, auth: context.tokens.authBlock(token, ttl), warnings };
}
