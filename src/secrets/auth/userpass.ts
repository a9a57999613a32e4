import { ApiError, badRequest, notFound } from '../../core/errors.js';
import type { EngineFactory } from '../context.js';
import { FieldData } from '../framework/fields.js';
import { withFields } from '../framework/handler-request.js';
import type { FieldSpec, HandlerRequest, LogicalResponse } from '../framework/types.js';
import { sanitizePolicies } from '../tokens/token-service.js';
import { addressInCidrs } from './cidr.js';
import { loginResponse } from './login.js';
import { hashPassword, verifyPassword } from './password-hash.js';
import { DEFAULT_TOKEN_SETTINGS, parseTokenSettings, TOKEN_FIELDS, tokenSettingsWire, type TokenSettings } from './token-settings.js';
import { upstream500 } from '../framework/errors.js';

/** A user as stored: the password only as a scrypt hash. */
interface UserEntry {
  passwordHash: string;
  settings: TokenSettings;
}

const USERNAME = /^\w(?:[\w.@-]*\w)?$/;
const USERNAME_FIELD: Record<string, FieldSpec> = {
  username: { type: 'string', description: 'Name of the user (in the URL; case-insensitive).' },
};
const PASSWORD_FIELD: Record<string, FieldSpec> = { password: { type: 'string', description: 'Password of the user.' } };
const USER_FIELDS: Record<string, FieldSpec> = {
  ...USERNAME_FIELD,
  ...PASSWORD_FIELD,
  ...TOKEN_FIELDS,
  ttl: { type: 'duration', description: 'Legacy name of token_ttl.' },
  max_ttl: { type: 'duration', description: 'Legacy name of token_max_ttl.' },
  bound_cidrs: { type: 'commaStringSlice', description: 'Legacy name of token_bound_cidrs.' },
};

/** The older field names, used when the `token_*` one is absent. */
const LEGACY_FIELDS = [
  ['ttl', 'token_ttl'],
  ['max_ttl', 'token_max_ttl'],
  ['bound_cidrs', 'token_bound_cidrs'],
] as const;

function withLegacyFields(request: HandlerRequest): HandlerRequest {
  const data = { ...request.data };
  for (const [legacy, current] of LEGACY_FIELDS) {
    if (data[current] === undefined && data[legacy] !== undefined) data[current] = data[legacy];
  }
  return withFields(request, new FieldData(USER_FIELDS, { ...data, ...request.params }));
}

/** Usernames are stored lower-cased, as the real service does, so `Bob` and `bob` are one user. */
function userKey(request: HandlerRequest): string {
  const username = (request.params['username'] ?? '').toLowerCase();
  if (!USERNAME.test(username)) throw badRequest(`invalid username "${request.params['username'] ?? ''}"`);
  return `user/${username}`;
}

function existingUser(request: HandlerRequest): { key: string; user: UserEntry } {
  const key = userKey(request);
  const user = request.storage.get<UserEntry>(key);
  if (!user) throw badRequest(`username does not exist: ${request.params['username']?.toLowerCase() ?? ''}`);
  return { key, user };
}

async function requiredPasswordHash(request: HandlerRequest): Promise<string> {
  const password = request.fields.get<string | undefined>('password');
  if (!password) throw badRequest('missing password');
  return hashPassword(password);
}

async function writeUser(request: HandlerRequest): Promise<LogicalResponse | undefined> {
  const key = userKey(request);
  const current = request.storage.get<UserEntry>(key);
  const settings = parseTokenSettings(withLegacyFields(request), current?.settings ?? DEFAULT_TOKEN_SETTINGS);
  const passwordHash = !current || request.fields.has('password') ? await requiredPasswordHash(request) : current.passwordHash;
  request.storage.put(key, { passwordHash, settings } satisfies UserEntry);
  return undefined;
}

/** The `userpass` auth method: users with passwords, and the login that trades them for a token. */
export const userpassMethod: EngineFactory = (context) => ({
  type: 'userpass',
  // As the real method: a deleted user's tokens stop renewing, and so do they when its policies change.
  renewLogin: (token, storage) => {
    const user = storage.get<UserEntry>(`user/${token.meta?.['username'] ?? ''}`);
    if (!user) throw upstream500(badRequest('user no longer exists, not renewing'));
    if (sanitizePolicies(user.settings.policies, !user.settings.noDefaultPolicy).join() !== token.policies.join()) {
      throw upstream500(badRequest('policies have changed, not renewing'));
    }
    return user.settings;
  },
  paths: [
    {
      pattern: 'users',
      summary: 'Names of the users.',
      operations: {
        list: (request) => {
          const keys = request.storage.list('user/');
          if (keys.length === 0) throw notFound();
          return { data: { keys } };
        },
      },
    },
    {
      pattern: 'users/:username/password',
      summary: "Change a user's password.",
      fields: { ...USERNAME_FIELD, ...PASSWORD_FIELD },
      operations: {
        update: async (request) => {
          const { key, user } = existingUser(request);
          request.storage.put(key, { ...user, passwordHash: await requiredPasswordHash(request) } satisfies UserEntry);
          return undefined;
        },
      },
    },
    {
      pattern: 'users/:username/policies',
      summary: "Change a user's token policies.",
      fields: {
        ...USERNAME_FIELD,
        token_policies: TOKEN_FIELDS['token_policies'] as FieldSpec,
        policies: TOKEN_FIELDS['policies'] as FieldSpec,
      },
      operations: {
        update: (request) => {
          const { key, user } = existingUser(request);
          request.storage.put(key, { ...user, settings: parseTokenSettings(request, user.settings) } satisfies UserEntry);
          return undefined;
        },
      },
    },
    {
      pattern: 'users/:username',
      summary: 'Create, read, update or delete a user.',
      fields: USER_FIELDS,
      existenceCheck: (request) => USERNAME.test(request.params['username'] ?? '') && request.storage.get(userKey(request)) !== undefined,
      operations: {
        read: (request) => {
          const user = request.storage.get<UserEntry>(userKey(request));
          if (!user) throw notFound();
          return { data: tokenSettingsWire(user.settings) };
        },
        create: writeUser,
        update: writeUser,
        delete: (request) => {
          request.storage.delete(userKey(request));
          return undefined;
        },
      },
    },
    {
      pattern: 'login/:username',
      summary: 'Log in with a username and password; answers a token.',
      fields: { ...USERNAME_FIELD, ...PASSWORD_FIELD },
      unauthenticated: ['create', 'update'],
      operations: {
        update: async (request) => {
          const username = (request.params['username'] ?? '').toLowerCase();
          const password = request.fields.get<string | undefined>('password');
          if (!password) throw badRequest('missing password');
          const user = USERNAME.test(username) ? request.storage.get<UserEntry>(`user/${username}`) : undefined;
          if (!(await verifyPassword(password, user?.passwordHash)) || !user) throw badRequest('invalid username or password');
          if (user.settings.boundCidrs.length > 0 && !addressInCidrs(request.clientAddress, user.settings.boundCidrs)) {
            throw new ApiError(403, 'permission denied', { messages: ['permission denied'] });
          }
          return loginResponse(context, request, {
            settings: user.settings,
            meta: { username },
            displayName: username,
            alias: { name: username, metadata: {} },
          });
        },
      },
    },
  ],
});
