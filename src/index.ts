/**
 * The in-process API: `import { startUnderstudy } from 'understudy'` starts a whole server on a
 * free port in one call, for a test runner's global setup. The types exported here stand alone
 * (scripts/build.mjs turns this file's declarations into dist/index.d.ts), so nothing internal
 * is part of the package's contract.
 */
import { VARIABLES } from './config.js';

/** Options, one per environment variable, by the config name (`seed` for `UNDERSTUDY_SEED`, `journalSize`, …). */
export interface UnderstudyOptions {
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Default `:memory:`. */
  store?: string;
  /** Default `warn`; logs go to stderr. */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  dialect?: 'spec' | 'upstream';
  seed?: string;
  adminToken?: string;
  rootToken?: string;
  controlToken?: string;
  edition?: 'self-hosted' | 'hosted';
  logFormat?: 'auto' | 'json' | 'pretty';
  corsOrigins?: string;
  smsApiUrl?: string;
  mailTimeoutMs?: number;
  kmsLibraries?: string;
  pkiKeyPool?: number;
  publicRegistryUrl?: string;
  publicRegistryToken?: string;
  journalSize?: number;
  snapshotDir?: string;
  /** The largest store file a snapshot import takes, in MiB (default 1024). */
  snapshotImportLimitMb?: number;
  executor?: 'auto' | 'terraform' | 'simulated';
  terraformBin?: string;
  tfPluginDir?: string;
  runConcurrency?: number;
  runProgression?: 'immediate' | 'clock' | 'manual';
  /** `auto`: HTTPS with a certificate from understudy's local CA (env then carries VAULT_CACERT and SSL_CERT_FILE). */
  tls?: 'off' | 'auto';
  /** Comma-separated extra names for the auto certificate. */
  tlsHosts?: string;
  /** Your own certificate and key (PEM files) instead of the auto one. */
  tlsCert?: string;
  tlsKey?: string;
  /** Where auto mode keeps its CA; default `tls/` beside the store, `~/.understudy/tls` for `:memory:`. */
  tlsDir?: string;
}

/** Journal filters, as `GET /_emulator/requests` takes them. */
export interface RequestFilter {
  method?: string;
  /** A path glob: `*` within a segment, `**` across segments. */
  path?: string;
  prefix?: string;
  /** `503` or `5xx`. */
  status?: number | string;
  /** An RFC 3339 time, a Date, or an entry id. */
  since?: string | number | Date;
  tokenAccessor?: string;
  faulted?: boolean;
  limit?: number;
}

/** One journal entry, as `GET /_emulator/requests` shows it. */
export interface RequestEntry {
  id: number;
  'request-id': string;
  time: string;
  'virtual-time': string;
  method: string;
  path: string;
  query: Record<string, string>;
  status: number | null;
  'duration-ms': number;
  'token-accessor': string | null;
  'request-body': unknown;
  'response-body': unknown;
  fault: { rule: string; effect: string } | null;
}

/** A fault rule, as `POST /_emulator/faults` takes it. */
export interface FaultRuleInput {
  prefix?: string;
  method?: string;
  path?: string;
  'token-accessor'?: string;
  status?: number;
  body?: unknown;
  headers?: Record<string, string | number>;
  delay?: number;
  reset?: boolean;
  timeout?: boolean;
  probability?: number;
  times?: number;
  after?: number;
}

export interface SnapshotInfo {
  name: string;
  'size-bytes': number;
  'created-at': string;
  clock: string | null;
}

export interface Understudy {
  /** `http://127.0.0.1:<port>` (`https://` under TLS) */
  url: string;
  /** What the banner exports: TFE_ADDRESS, TFE_TOKEN, VAULT_ADDR, VAULT_TOKEN; under auto TLS also VAULT_CACERT and SSL_CERT_FILE. */
  env: Record<string, string>;
  tokens: { admin: string; root: string; control: string | null };
  /** Back to the seed state; resolves to the milliseconds it took. */
  reset(): Promise<number>;
  snapshot(name: string, options?: { replace?: boolean }): Promise<SnapshotInfo>;
  restore(name: string, options?: { clock?: boolean }): Promise<{ 'duration-ms': number; clock: string }>;
  /** Journal entries, oldest first. */
  requests(filter?: RequestFilter): RequestEntry[];
  faults: {
    /** Adds a rule; resolves to it with its id. */
    add(rule: FaultRuleInput): Record<string, unknown> & { id: string };
    list(): (Record<string, unknown> & { id: string })[];
    remove(id: string): boolean;
    clear(): void;
  };
  clock: {
    now(): Date;
    /** Moves the emulated clock forward (`"36h"`), running what falls due on the way. */
    advance(duration: string): Promise<void>;
    set(time: Date | string, options?: { force?: boolean }): Promise<void>;
  };
  stop(): Promise<void>;
}

/** The options as the environment variables they stand for, over the in-process defaults. */
function environmentOf(options: UnderstudyOptions): Record<string, string> {
  const env: Record<string, string> = { UNDERSTUDY_PORT: '0', UNDERSTUDY_STORE: ':memory:', UNDERSTUDY_LOG_LEVEL: 'warn' };
  for (const [key, value] of Object.entries(options)) {
    const variable = VARIABLES.find((candidate) => candidate.key === key);
    if (variable === undefined) throw new Error(`startUnderstudy: unknown option ${JSON.stringify(key)}`);
    if (value !== undefined && value !== null) env[variable.name] = String(value);
  }
  return env;
}

/**
 * Starts understudy in this process and resolves once it listens. The server itself (src/in-process.ts)
 * is loaded on this first call, not on import: importing the package costs a test runner's
 * config file nothing.
 */
export async function startUnderstudy(options: UnderstudyOptions = {}): Promise<Understudy> {
  const environment = environmentOf(options);
  const { startInProcess } = await import('./in-process.js');
  return startInProcess(environment);
}
