import { ApiError, badRequest } from '../../core/errors.js';
import { RESPONSE_WRAPPING_POLICY } from '../acl/authorizer.js';
import type { SecretsContext } from '../context.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../framework/types.js';
import type { TokenEntry } from '../tokens/token-store.js';
import { answerOf } from '../wrapping/response-wrapper.js';
import { upstream500 } from '../framework/errors.js';

const TOKEN_FIELD: Record<string, FieldSpec> = {
  token: { type: 'string', description: 'The wrapping token, when it is not the calling token.' },
};

const INVALID_WRAPPING_TOKEN = new ApiError(400, 'wrapping token is not valid or does not exist');
const validationError = (detail: string) => new ApiError(403, `error validating wrapping token: ${detail}`);

/** The body's `token` when one is given (a third party acts on someone's wrapping token). */
function bodyToken(request: HandlerRequest): string | undefined {
  const value = request.data['token'];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw validationError('could not decode token in request body');
  if (value === '') throw validationError('empty token in request body');
  return value;
}

/**
 * `sys/wrapping/…`: wrap arbitrary data, and look up, unwrap and rewrap wrapping tokens. The
 * wrapping token is the body's `token`, else the calling token; it is checked before the
 * caller's policy, as the real service does, so a bad one is a 400.
 */
export function wrappingPaths(context: SecretsContext): PathSpec[] {
  const { tokens, wrapping } = context;

  const isWrappingToken = (token: TokenEntry | null | undefined): token is TokenEntry =>
    !!token && token.policies.length === 1 && token.policies[0] === RESPONSE_WRAPPING_POLICY;
  const wrappingToken = (value: string | undefined): TokenEntry | undefined => {
    const token = tokens.store.lookup(value);
    return isWrappingToken(token) ? token : undefined;
  };

  const checkWrappingToken = (request: HandlerRequest, clientToken: string | undefined): void => {
    const value = bodyToken(request) ?? clientToken;
    if (!value) throw validationError('token is empty');
    // The calling token was looked up by the router a moment ago: no second lookup for the same value.
    const token = request.token?.secret === value ? request.token : tokens.store.lookup(value);
    if (!isWrappingToken(token)) throw INVALID_WRAPPING_TOKEN;
  };

  /**
   * The wrapping token a handler acts on. Named in the body, its one use is taken here and it is
   * revoked once read; as the calling token, the router took the use and revokes it afterwards.
   */
  const consume = <T>(request: HandlerRequest, read: (token: TokenEntry) => T): T | Promise<T> => {
    const named = bodyToken(request);
    const token = named ? wrappingToken(named) : request.token;
    if (!token) throw INVALID_WRAPPING_TOKEN;
    // The calling token's answer is read at once, without a promise: the router revokes it afterwards.
    return named ? readAndRevoke(tokens.consumeUse(token).token, read) : read(token);
  };
  const readAndRevoke = async <T>(token: TokenEntry, read: (token: TokenEntry) => T): Promise<T> => {
    try {
      return read(token);
    } finally {
      await tokens.revokeTree(token);
    }
  };

  const storedAnswer = (token: TokenEntry): string => {
    const stored = wrapping.storedAnswer(token);
    if (stored === undefined) throw upstream500(badRequest('no information found; wrapping token may be from a previous Vault version'));
    return stored;
  };

  return [
    {
      pattern: 'wrapping/wrap',
      summary: 'Wrap the request body in a new wrapping token (needs X-Vault-Wrap-TTL).',
      operations: {
        update: (request) => {
          if (request.wrapTtl <= 0) throw badRequest('endpoint requires response wrapping to be used');
          return { data: request.data };
        },
      },
    },
    {
      pattern: 'wrapping/unwrap',
      summary: 'The answer kept in a wrapping token, exactly as it was; the token is then revoked.',
      fields: TOKEN_FIELD,
      beforeAuth: checkWrappingToken,
      operations: { update: (request) => consume(request, (token): LogicalResponse => answerOf(storedAnswer(token))) },
    },
    {
      pattern: 'wrapping/lookup',
      summary: "A wrapping token's creation time, TTL and path, without using it.",
      fields: TOKEN_FIELD,
      // The real service answers lookups without a token check: the wrapping token is the credential.
      unauthenticated: ['read', 'update'],
      beforeAuth: checkWrappingToken,
      operations: {
        update: (request) => lookup(request),
        read: (request) => lookup(request),
      },
    },
    {
      pattern: 'wrapping/rewrap',
      summary: 'Move a wrapped answer to a new wrapping token with the same TTL; the old one is revoked.',
      fields: TOKEN_FIELD,
      beforeAuth: checkWrappingToken,
      operations: {
        update: (request) =>
          consume(request, (token): LogicalResponse => {
            const record = wrapping.record(token);
            if (!record) throw upstream500(badRequest('no information found; wrapping token may be from a previous Vault version'));
            return { rewrap: { ttl: record.creation_ttl, creationPath: record.creation_path, storedResponse: storedAnswer(token) } };
          }),
      },
    },
  ];

  function lookup(request: HandlerRequest): LogicalResponse {
    const value = bodyToken(request) ?? request.token?.secret;
    const token = wrappingToken(value);
    if (!token) throw INVALID_WRAPPING_TOKEN;
    const record = wrapping.record(token);
    if (!record) throw badRequest('no information found; wrapping token may be from a previous Vault version');
    return { data: { ...record } };
  }
}
