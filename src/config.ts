import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { DIALECTS, type Dialect } from './core/dialect.js';
import { EDITIONS, type Edition } from './core/edition.js';
import { packagePath } from './core/package-root.js';

/** `name=path` pairs separated by commas (names: letters, digits, `_`, `-`, `.`); may be empty. */
const KMS_LIBRARIES_PATTERN = '^(?:[A-Za-z0-9_.-]+=[^,=]+(?:,[A-Za-z0-9_.-]+=[^,=]+)*)?$';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
/** `auto`: the terraform CLI when one is found, else the simulated executor (said once in the log). */
export const EXECUTORS = ['auto', 'terraform', 'simulated'] as const;
/** How a simulated run moves between states: at once, on the virtual clock, or on request. */
export const RUN_PROGRESSIONS = ['immediate', 'clock', 'manual'] as const;
/** `auto`: HTTPS with a certificate from a local CA understudy makes once (see server/tls). */
export const TLS_MODES = ['off', 'auto'] as const;

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
  edition: Type.Union(EDITIONS.map((edition) => Type.Literal(edition))),
  logFormat: Type.Union(LOG_FORMATS.map((format) => Type.Literal(format))),
  /** Comma-separated browser origins allowed to call the server, or `*`; null: no CORS headers. */
  corsOrigins: Type.Union([
    Type.String({ minLength: 1, pattern: '^(\\*|[a-zA-Z][a-zA-Z0-9+.-]*://[^,\\s/]+(\\s*,\\s*[a-zA-Z][a-zA-Z0-9+.-]*://[^,\\s/]+)*)$' }),
    Type.Null(),
  ]),
  smsApiUrl: Type.Union([Type.String({ pattern: '^https?://' }), Type.Null()]),
  mailTimeoutMs: Type.Integer({ minimum: 1, maximum: 600000 }),
  notificationTimeoutMs: Type.Integer({ minimum: 1, maximum: 600000 }),
  kmsLibraries: Type.String({ pattern: KMS_LIBRARIES_PATTERN }),
  pkiKeyPool: Type.Integer({ minimum: 0, maximum: 1000 }),
  publicRegistryUrl: Type.Union([Type.String({ pattern: '^https?://' }), Type.Null()]),
  publicRegistryToken: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  journalSize: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  snapshotDir: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  snapshotImportLimitMb: Type.Integer({ minimum: 1, maximum: 1_048_576 }),
  executor: Type.Union(EXECUTORS.map((executor) => Type.Literal(executor))),
  terraformBin: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  tfPluginDir: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  runConcurrency: Type.Integer({ minimum: 1, maximum: 64 }),
  /** A user name or `uid[:gid]` runs execute as when the server is root; null: `nobody`. */
  runUser: Type.Union([Type.String({ pattern: '^(?:[A-Za-z_][A-Za-z0-9_.-]{0,31}|\\d+(?::\\d+)?)$' }), Type.Null()]),
  runAsRoot: Type.Union([Type.Literal('true'), Type.Literal('false')]),
  allowInsecureBind: Type.Union([Type.Literal('true'), Type.Literal('false')]),
  runProgression: Type.Union(RUN_PROGRESSIONS.map((mode) => Type.Literal(mode))),
  tls: Type.Union(TLS_MODES.map((mode) => Type.Literal(mode))),
  /** Comma-separated names and addresses the auto certificate covers besides loopback. */
  tlsHosts: Type.Union([Type.String({ pattern: '^[A-Za-z0-9.:*-]+(\\s*,\\s*[A-Za-z0-9.:*-]+)*$' }), Type.Null()]),
  tlsCert: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  tlsKey: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  tlsDir: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
  /** scheme://host[:port], no path or trailing slash: the OIDC issuer verifiers compare byte for byte. */
  publicUrl: Type.Union([Type.String({ pattern: '^https?://[^/?#\\s]+$' }), Type.Null()]),
});

export type Config = Static<typeof ConfigSchema> & { dialect: Dialect; edition: Edition };

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
  {
    name: 'UNDERSTUDY_HOST',
    key: 'host',
    default: '127.0.0.1',
    expects: 'a host name or address',
    meaning: 'address to bind (0.0.0.0 in the container)',
  },
  {
    name: 'UNDERSTUDY_PORT',
    key: 'port',
    default: '8200',
    expects: 'an integer from 0 to 65535',
    meaning: 'port for every prefix (0 picks a free one)',
  },
  {
    name: 'UNDERSTUDY_STORE',
    key: 'store',
    default: 'data/understudy.sqlite',
    expects: 'a file path or :memory:',
    meaning: 'SQLite file holding all state; :memory: is ephemeral',
  },
  { name: 'UNDERSTUDY_LOG_LEVEL', key: 'logLevel', default: 'info', expects: LOG_LEVELS.join(' | '), meaning: 'pino log level' },
  {
    name: 'UNDERSTUDY_DIALECT',
    key: 'dialect',
    default: 'spec',
    expects: 'spec | upstream',
    meaning: "identifiers in responses: the spec's neutral words or the real services'",
  },
  {
    name: 'UNDERSTUDY_SEED',
    key: 'seed',
    default: 'fixtures/default.json',
    expects: 'a path to a seed file',
    meaning: 'initial state of both APIs, restored by /_emulator/reset: a JSON seed, or a snapshot (store file) to start from',
  },
  {
    name: 'UNDERSTUDY_ADMIN_TOKEN',
    key: 'adminToken',
    default: 'understudy-admin-token',
    expects: 'at least 8 characters',
    meaning: "platform API token of the seed's site administrator",
  },
  {
    name: 'UNDERSTUDY_ROOT_TOKEN',
    key: 'rootToken',
    aliases: ['VAULT_DEV_ROOT_TOKEN_ID'],
    default: 'root',
    expects: 'a non-empty string',
    meaning: 'secrets API root token',
  },
  {
    name: 'UNDERSTUDY_CONTROL_TOKEN',
    key: 'controlToken',
    default: null,
    expects: 'a non-empty string',
    meaning: 'when set, /_emulator requires it as a bearer token',
  },
  {
    name: 'UNDERSTUDY_LOG_FORMAT',
    key: 'logFormat',
    default: 'auto',
    expects: LOG_FORMATS.join(' | '),
    meaning: 'log lines as JSON or pretty text; auto is pretty when stderr is a terminal',
  },
  {
    name: 'UNDERSTUDY_CORS_ORIGINS',
    key: 'corsOrigins',
    default: null,
    expects: '* or comma-separated origins such as http://localhost:3000',
    meaning: 'browser origins allowed to call the APIs (CORS); unset allows none',
  },
  {
    name: 'UNDERSTUDY_EDITION',
    key: 'edition',
    default: 'self-hosted',
    expects: 'self-hosted | hosted',
    meaning: 'which platform edition to stand in for (admin API on self-hosted; public registry on hosted)',
  },
  {
    name: 'UNDERSTUDY_SMS_API_URL',
    key: 'smsApiUrl',
    default: null,
    expects: 'an http:// or https:// URL',
    meaning: 'base URL of an SMS messages API for admin SMS verification; unset keeps SMS in /_emulator/outbox',
  },
  {
    name: 'UNDERSTUDY_MAIL_TIMEOUT_MS',
    key: 'mailTimeoutMs',
    default: '10000',
    expects: 'an integer from 1 to 600000',
    meaning: 'longest wait for the SMTP server (or SMS API) on an admin test message; past it, 504',
  },
  {
    name: 'UNDERSTUDY_NOTIFICATION_TIMEOUT_MS',
    key: 'notificationTimeoutMs',
    default: '10000',
    expects: 'an integer from 1 to 600000',
    meaning: 'longest wait for a notification destination (URL or SMTP server); past it, the delivery counts as failed',
  },
  {
    name: 'UNDERSTUDY_KMS_LIBRARIES',
    key: 'kmsLibraries',
    default: 'softhsm=/usr/lib/softhsm/libsofthsm2.so',
    expects: 'name=path pairs separated by commas',
    meaning: 'PKCS#11 libraries managed keys may name in `library` (the kms_library entries)',
  },
  {
    name: 'UNDERSTUDY_PKI_KEY_POOL',
    key: 'pkiKeyPool',
    default: '20',
    expects: 'an integer from 0 to 1000',
    meaning: 'PKI keys kept pre-generated per common key type and size (other sizes, and 0: generate each on demand)',
  },
  {
    name: 'UNDERSTUDY_PUBLIC_REGISTRY_URL',
    key: 'publicRegistryUrl',
    default: null,
    expects: 'an http(s) URL',
    meaning: 'modules.v1 base URL the public registry proxy (hosted edition) forwards to',
  },
  {
    name: 'UNDERSTUDY_PUBLIC_REGISTRY_TOKEN',
    key: 'publicRegistryToken',
    default: null,
    expects: 'a non-empty string',
    meaning: 'bearer token sent to the public registry, when it needs one',
  },
  {
    name: 'UNDERSTUDY_JOURNAL_SIZE',
    key: 'journalSize',
    default: '10000',
    expects: 'an integer from 0 to 1000000',
    meaning: 'requests the journal (/_emulator/requests) keeps, newest win; 0 turns it off',
  },
  {
    name: 'UNDERSTUDY_SNAPSHOT_DIR',
    key: 'snapshotDir',
    default: null,
    expects: 'a directory path',
    meaning: 'where /_emulator/snapshots keeps snapshots; unset: snapshots/ beside the store file (a temporary directory for :memory:)',
  },
  {
    name: 'UNDERSTUDY_SNAPSHOT_IMPORT_LIMIT_MB',
    key: 'snapshotImportLimitMb',
    default: '1024',
    expects: 'an integer from 1 to 1048576',
    meaning: 'largest store file POST /_emulator/snapshots/import takes, in MiB; a larger body is refused with 413',
  },
  {
    name: 'UNDERSTUDY_EXECUTOR',
    key: 'executor',
    default: 'auto',
    expects: EXECUTORS.join(' | '),
    meaning: 'how runs plan and apply: the real terraform CLI, the simulated executor, or auto (the CLI when found)',
  },
  {
    name: 'UNDERSTUDY_TERRAFORM_BIN',
    key: 'terraformBin',
    default: null,
    expects: 'a path to a terraform binary',
    meaning: 'the terraform CLI runs use (unset: `terraform` on PATH)',
  },
  {
    name: 'UNDERSTUDY_TF_PLUGIN_DIR',
    key: 'tfPluginDir',
    default: null,
    expects: 'a directory path',
    meaning: 'providers for runs, passed as `terraform init -plugin-dir` (unset: the CLI config, TF_PLUGIN_CACHE_DIR, mirrors)',
  },
  {
    name: 'UNDERSTUDY_RUN_CONCURRENCY',
    key: 'runConcurrency',
    default: '2',
    expects: 'an integer from 1 to 64',
    meaning: 'plans and applies executing at once; later runs wait in plan_queued / apply_queued',
  },
  {
    name: 'UNDERSTUDY_RUN_USER',
    key: 'runUser',
    default: null,
    expects: 'a user name or uid[:gid]',
    meaning: 'who the terraform executor runs as when the server runs as root (unset: nobody)',
  },
  {
    name: 'UNDERSTUDY_RUN_AS_ROOT',
    key: 'runAsRoot',
    default: 'false',
    expects: 'true | false',
    meaning: 'true: a server running as root may run terraform (and what a configuration runs) as root',
  },
  {
    name: 'UNDERSTUDY_ALLOW_INSECURE_BIND',
    key: 'allowInsecureBind',
    default: 'false',
    expects: 'true | false',
    meaning: 'true: bind beyond loopback even with the well-known default admin or root token',
  },
  {
    name: 'UNDERSTUDY_RUN_PROGRESSION',
    key: 'runProgression',
    default: 'immediate',
    expects: RUN_PROGRESSIONS.join(' | '),
    meaning: 'how simulated runs move on: at once, on the virtual clock, or by POST /_emulator/runs/:id/advance',
  },
  {
    name: 'UNDERSTUDY_TLS',
    key: 'tls',
    default: 'off',
    expects: TLS_MODES.join(' | '),
    meaning: 'auto: HTTPS on the same port, with a certificate from a local CA understudy makes once (see HTTPS below)',
  },
  {
    name: 'UNDERSTUDY_TLS_HOSTS',
    key: 'tlsHosts',
    default: null,
    expects: 'comma-separated host names or IP addresses',
    meaning: 'names the auto certificate covers besides localhost, 127.0.0.1, ::1 and the bind address',
  },
  {
    name: 'UNDERSTUDY_TLS_CERT',
    key: 'tlsCert',
    default: null,
    expects: 'a path to a PEM certificate (chain)',
    meaning: 'serve HTTPS with your own certificate instead (with UNDERSTUDY_TLS_KEY)',
  },
  {
    name: 'UNDERSTUDY_TLS_KEY',
    key: 'tlsKey',
    default: null,
    expects: 'a path to a PEM private key',
    meaning: 'the private key of UNDERSTUDY_TLS_CERT',
  },
  {
    name: 'UNDERSTUDY_TLS_DIR',
    key: 'tlsDir',
    default: null,
    expects: 'a directory path',
    meaning: 'where auto mode keeps its CA and certificates; unset: tls/ beside the store file (~/.understudy/tls for :memory:)',
  },
  {
    name: 'UNDERSTUDY_PUBLIC_URL',
    key: 'publicUrl',
    default: null,
    expects: 'an http(s) URL of scheme and host[:port] only, with no path or trailing slash',
    meaning: 'OIDC issuer of workload identity tokens (discovery and iss); unset: the banner address (https://localhost:PORT under TLS)',
  },
];

/** Variables whose value is a number. */
const NUMERIC: ReadonlySet<keyof Config> = new Set([
  'port',
  'mailTimeoutMs',
  'notificationTimeoutMs',
  'pkiKeyPool',
  'journalSize',
  'snapshotImportLimitMb',
  'runConcurrency',
]);

/** `UNDERSTUDY_KMS_LIBRARIES` as a map from library name to path. */
export function kmsLibraryMap(text: string): Map<string, string> {
  const pairs = text === '' ? [] : text.split(',').map((pair) => pair.split('=') as [string, string]);
  return new Map(pairs.map(([name, path]) => [name.trim(), path.trim()]));
}

/**
 * The seed shipped with understudy. The default is resolved against the package, not the working
 * directory, so `node /path/to/dist/main.js` works from anywhere; a path the user gives is
 * resolved against the working directory as usual.
 */
export const SHIPPED_SEED = packagePath('fixtures', 'default.json');

export class ConfigError extends Error {}

/** Reads `.env` (if present) under the process environment; the environment wins. */
export function readEnvironment(env: NodeJS.ProcessEnv = process.env, dotenvPath = '.env'): Record<string, string | undefined> {
  const fromFile = existsSync(dotenvPath) ? parseEnv(readFileSync(dotenvPath, 'utf8')) : {};
  return { ...fromFile, ...env };
}

/**
 * `UNDERSTUDY_*` names in the environment that no setting reads (a typo such as `UNDERSTUDY_PROT`
 * would otherwise leave the default in place without a word), sorted; start-up warns once about them.
 */
export function unknownVariables(env: Record<string, string | undefined>): string[] {
  const known = new Set(VARIABLES.flatMap((variable) => [variable.name, ...(variable.aliases ?? [])]));
  return Object.keys(env)
    .filter((name) => name.startsWith('UNDERSTUDY_') && !known.has(name))
    .sort();
}

/** Turns the environment into a typed config, or throws one ConfigError naming the variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const raw: Record<string, unknown> = {};
  for (const variable of VARIABLES) {
    const names = [variable.name, ...(variable.aliases ?? [])];
    const given = names.map((name) => env[name]).find((value) => value !== undefined && value !== '');
    const text = given ?? (variable.key === 'seed' ? SHIPPED_SEED : variable.default);
    raw[variable.key] = NUMERIC.has(variable.key) && text !== null && /^\d+$/.test(text) ? Number(text) : text;
    if (!Value.Check(ConfigSchema.properties[variable.key], raw[variable.key])) {
      throw new ConfigError(`${variable.name} must be ${variable.expects} (got ${JSON.stringify(given)})`);
    }
  }
  const config = raw as Config;
  refuseExposedDefaults(config);
  return config;
}

/** Host names and addresses only this machine reaches. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^(?:::ffff:)?127(?:\.\d{1,3}){3}$/.test(bare);
}

/**
 * The default tokens are printed in the README: anyone who reaches the port with them is the
 * site administrator and the secrets root. Beyond loopback that takes a choice (own tokens, or
 * UNDERSTUDY_ALLOW_INSECURE_BIND=true where the network is the boundary, as in the container).
 */
function refuseExposedDefaults(config: Config): void {
  if (isLoopback(config.host) || config.allowInsecureBind === 'true') return;
  const wellKnown = [
    ...(config.adminToken === defaultOf('adminToken') ? ['UNDERSTUDY_ADMIN_TOKEN'] : []),
    ...(config.rootToken === defaultOf('rootToken') ? ['UNDERSTUDY_ROOT_TOKEN'] : []),
  ];
  if (wellKnown.length === 0) return;
  const verb = wellKnown.length > 1 ? 'are' : 'is';
  throw new ConfigError(
    `UNDERSTUDY_HOST=${config.host} reaches beyond this machine while ${wellKnown.join(' and ')} ${verb} the well-known default: ` +
      'set your own, or UNDERSTUDY_ALLOW_INSECURE_BIND=true to accept that anyone who reaches the port is administrator',
  );
}

const defaultOf = (key: keyof Config) => VARIABLES.find((variable) => variable.key === key)?.default;
