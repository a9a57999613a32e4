import type { ServerResponse } from 'node:http';
import { resolveRunUser, RunUserError } from './adapters/executor/run-user.js';
import { buildApp } from './app.js';
import { cliAction } from './cli.js';
import { flushLogs, logDestination, routeProcessWarnings } from './logging.js';
import { ConfigError, loadConfig, readEnvironment, unknownVariables, type Config } from './config.js';
import { SHUTDOWN_DEADLINE_MS } from './core/shutdown.js';
import { VERSION } from './core/version.js';
import { SeedError } from './seed/seed.js';
import { StoreError } from './store/store.js';
import { clientEnvironment, clientUrl, publicUrl } from './server/address.js';
import { TlsError, type TlsMaterial } from './server/tls/material.js';

const startedAt = performance.now();

let answeredFirst: () => void = () => undefined;
/**
 * Resolves once the server has answered its first request. Read by dist/main.js
 * (scripts/launcher.mjs), which saves V8's code cache again then, with the functions of the
 * request path, which nothing compiles before a request: the first answer after a start-up then
 * costs about 10 ms of CPU instead of 15 (a health check's, measured on this machine).
 */
export const firstAnswered = new Promise<void>((resolve) => (answeredFirst = resolve));

function fail(message: string): never {
  process.stderr.write(`understudy: ${message}\n`);
  process.exit(1);
}

/** Comment lines that say how clients come to trust the HTTPS certificate. */
function tlsLines(tls: TlsMaterial | null): string[] {
  if (tls === null) return [];
  if (tls.source === 'files') return ['# HTTPS with the certificate in UNDERSTUDY_TLS_CERT'];
  return [
    `# HTTPS with a certificate for ${tls.hosts.join(', ')} from understudy's local CA, ${tls.caFile}`,
    "# VAULT_CACERT makes the secrets CLI and hvac trust it; SSL_CERT_FILE (the system's roots plus that CA)",
    '# makes terraform and other Go or OpenSSL programs trust it, e.g. hostname = "localhost:<port>" with no host block',
  ];
}

/** The workload identity issuer, when it is not the address above (HTTPS, or UNDERSTUDY_PUBLIC_URL). */
function issuerLines(issuer: string, address: string): string[] {
  return issuer === address ? [] : [`# Workload identity issuer (OIDC discovery at ${issuer}/.well-known/openid-configuration): ${issuer}`];
}

/** Resolves to true once the server listens, to false when the command only printed (--help, --version). */
async function main(): Promise<boolean> {
  // --help and --version answer before anything opens the store or a port.
  const action = cliAction(process.argv.slice(2));
  if (action.kind === 'print') {
    process.stdout.write(action.text);
    return false;
  }
  if (action.kind === 'refuse') {
    process.stderr.write(action.text);
    process.exit(2);
  }

  let config: Config;
  const environment = readEnvironment();
  try {
    config = loadConfig(environment);
  } catch (error) {
    if (error instanceof ConfigError) fail(`invalid configuration: ${error.message}`);
    throw error;
  }
  // The terraform executor asked for by name must not start as root by accident (run-user.ts).
  if (config.executor === 'terraform') {
    try {
      resolveRunUser(config);
    } catch (error) {
      if (error instanceof RunUserError) fail(error.message);
      throw error;
    }
  }

  let app;
  const logTo = await logDestination(config);
  try {
    app = await buildApp(config, { logTo });
  } catch (error) {
    if (error instanceof SeedError || error instanceof TlsError) fail(error.message);
    if (error instanceof StoreError) fail(`UNDERSTUDY_STORE=${config.store} cannot be used: ${error.message}`);
    throw error;
  }

  routeProcessWarnings(app.fastify.log);
  const unknown = unknownVariables(environment);
  if (unknown.length > 0) app.fastify.log.warn(`ignoring unknown variables (a typo?): ${unknown.join(', ')}`);

  try {
    await app.fastify.listen({ host: config.host, port: config.port });
  } catch (error) {
    fail(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`);
  }
  // `once`: the requests after the first pay for no listener.
  app.fastify.server.once('request', (_request, response: ServerResponse) => response.once('finish', answeredFirst));
  const port = (app.fastify.server.address() as { port: number }).port;
  const address = clientUrl(config, port, app.tls);
  const env = clientEnvironment(config, address, app.tls);
  const elapsed = Math.round(performance.now() - startedAt);

  // Only the banner goes to stdout (logs go to stderr), so `npm start | grep ^export` is clean.
  process.stdout.write(
    [
      `understudy ${VERSION} ready on ${address} in ${elapsed} ms (dialect ${config.dialect}, edition ${config.edition}, ` +
        `store ${app.runtime.store.ephemeral ? ':memory:' : app.runtime.store.location})`,
      // A comment line: scripts that read only the export lines (or `eval` them) are unaffected.
      `# API reference: ${address}/_emulator/docs`,
      ...tlsLines(app.tls),
      ...issuerLines(publicUrl(config, port, app.tls), address),
      ...Object.entries(env).map(([name, value]) => `export ${name}=${value}`),
      '',
    ].join('\n'),
  );

  // Closing ends every connection, pool, worker and timer (see core/shutdown.ts); the watchdog
  // makes the deadline hold even if something still hangs. A second signal exits at once.
  const shutdown = (signal: string) => {
    app.fastify.log.info({ signal }, 'shutting down');
    process.once(signal, () => process.exit(1));
    setTimeout(() => {
      process.stderr.write(`understudy: shutdown did not finish within ${SHUTDOWN_DEADLINE_MS} ms; exiting anyway\n`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS - 250).unref();
    // The log destination is asynchronous: what it holds goes out before the process does.
    app.fastify.close().then(
      () => {
        flushLogs(logTo);
        process.exit(0);
      },
      () => {
        flushLogs(logTo);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  return true;
}

/** Read by dist/main.js (scripts/launcher.mjs), which saves V8's code cache once the server is up. */
export const started: Promise<boolean> = main().catch((error: unknown) => fail(`failed to start: ${(error as Error).message}`));
