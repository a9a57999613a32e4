import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { DIALECTS, type Dialect } from './core/dialect.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const ConfigSchema = Type.Object({
  host: Type.String({ minLength: 1 }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  store: Type.String({ minLength: 1 }),
  logLevel: Type.Union(LOG_LEVELS.map((level) => Type.Literal(level))),
  dialect: Type.Union(DIALECTS.map((dialect) => Type.Literal(dialect))),
  seed: Type.String({ minLength: 1 }),
  adminToken: Type.String({ minLength: 8 }),
  rootToken: Type.String({ minLength: 1 }),
  controlToken: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
});

export type Config = Static<typeof ConfigSchema> & { dialect: Dialect };

interface Variable {
  name: string;
  key: keyof Config;
  /** Other names read when `name` is unset, in order. */
  aliases?: string[];
  default: string | null;
  /** What a valid value looks like, for the one-line error. */
  expects: string;
  meaning: string;
}

/** Every variable understudy reads. `.env.example` and the README list exactly these. */
export const VARIABLES: readonly Variable[] = [
  { name: 'UNDERSTUDY_HOST', key: 'host', default: '127.0.0.1', expects: 'a host name or address', meaning: 'address to bind (0.0.0.0 in the container)' },
  { name: 'UNDERSTUDY_PORT', key: 'port', default: '8200', expects: 'an integer from 0 to 65535', meaning: 'port for every prefix (0 picks a free one)' },
  { name: 'UNDERSTUDY_STORE', key: 'store', default: 'data/understudy.sqlite', expects: 'a file path or :memory:', meaning: 'SQLite file holding all state; :memory: is ephemeral' },
  { name: 'UNDERSTUDY_LOG_LEVEL', key: 'logLevel', default: 'info', expects: LOG_LEVELS.join(' | '), meaning: 'pino log level' },
  { name: 'UNDERSTUDY_DIALECT', key: 'dialect', default: 'spec', expects: 'spec | upstream', meaning: 'identifiers in responses: the spec\'s neutral words or the real services\'' },
  { name: 'UNDERSTUDY_SEED', key: 'seed', default: 'fixtures/default.json', expects: 'a path to a seed file', meaning: 'initial state of both APIs, restored by /_emulator/reset' },
  { name: 'UNDERSTUDY_ADMIN_TOKEN', key: 'adminToken', default: 'understudy-admin-token', expects: 'at least 8 characters', meaning: 'platform API token of the seed\'s site administrator' },
  { name: 'UNDERSTUDY_ROOT_TOKEN', key: 'rootToken', aliases: ['VAULT_DEV_ROOT_TOKEN_ID'], default: 'root', expects: 'a non-empty string', meaning: 'secrets API root token' },
  { name: 'UNDERSTUDY_CONTROL_TOKEN', key: 'controlToken', default: null, expects: 'a non-empty string', meaning: 'when set, /_emulator requires it as a bearer token' },
];

/**
 * The seed shipped with understudy. The default is resolved against the package, not the working
 * directory, so `node /path/to/dist/main.js` works from anywhere; a path the user gives is
 * resolved against the working directory as usual.
 */
export const SHIPPED_SEED = fileURLToPath(new URL('../fixtures/default.json', import.meta.url));

export class ConfigError extends Error {}

/** Reads `.env` (if present) under the process environment; the environment wins. */
export function readEnvironment(env: NodeJS.ProcessEnv = process.env, dotenvPath = '.env'): Record<string, string | undefined> {
  const fromFile = existsSync(dotenvPath) ? parseEnv(readFileSync(dotenvPath, 'utf8')) : {};
  return { ...fromFile, ...env };
}

/** Turns the environment into a typed config, or throws one ConfigError naming the variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const raw: Record<string, unknown> = {};
  for (const variable of VARIABLES) {
    const names = [variable.name, ...(variable.aliases ?? [])];
    const given = names.map((name) => env[name]).find((value) => value !== undefined && value !== '');
    const text = given ?? (variable.key === 'seed' ? SHIPPED_SEED : variable.default);
    raw[variable.key] = variable.key === 'port' && text !== null && /^\d+$/.test(text) ? Number(text) : text;
    if (!Value.Check(ConfigSchema.properties[variable.key], raw[variable.key])) {
      throw new ConfigError(`${variable.name} must be ${variable.expects} (got ${JSON.stringify(given)})`);
    }
  }
  return raw as Config;
}
