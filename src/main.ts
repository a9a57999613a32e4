import { buildApp } from './app.js';
import { cliAction } from './cli.js';
import { logDestination } from './logging.js';
import { ConfigError, loadConfig, readEnvironment, type Config } from './config.js';
import { SHUTDOWN_DEADLINE_MS } from './core/shutdown.js';
import { VERSION } from './core/version.js';
import { SeedError } from './seed/seed.js';
import { StoreError } from './store/store.js';

const startedAt = performance.now();

function fail(message: string): never {
  process.stderr.write(`understudy: ${message}\n`);
  process.exit(1);
}

/** The address a client on this machine should use (a wildcard bind is reached via loopback). */
function clientAddress(config: Config, port: number): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

async function main(): Promise<void> {
  // --help and --version answer before anything opens the store or a port.
  const action = cliAction(process.argv.slice(2));
  if (action.kind === 'print') {
    process.stdout.write(action.text);
    return;
  }
  if (action.kind === 'refuse') {
    process.stderr.write(action.text);
    process.exit(2);
  }

  let config: Config;
  try {
    config = loadConfig(readEnvironment());
  } catch (error) {
    if (error instanceof ConfigError) fail(`invalid configuration: ${error.message}`);
    throw error;
  }

  let app;
  try {
    app = await buildApp(config, { logTo: await logDestination(config) });
  } catch (error) {
    if (error instanceof SeedError) fail(error.message);
    if (error instanceof StoreError) fail(`UNDERSTUDY_STORE=${config.store} cannot be used: ${error.message}`);
    throw error;
  }

  try {
    await app.fastify.listen({ host: config.host, port: config.port });
  } catch (error) {
    fail(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`);
  }
  const port = (app.fastify.server.address() as { port: number }).port;
  const address = clientAddress(config, port);
  const elapsed = Math.round(performance.now() - startedAt);

  // Only the banner goes to stdout (logs go to stderr), so `npm start | grep ^export` is clean.
  process.stdout.write(
    [
      `understudy ${VERSION} ready on ${address} in ${elapsed} ms (dialect ${config.dialect}, edition ${config.edition}, ` +
        `store ${app.runtime.store.ephemeral ? ':memory:' : app.runtime.store.location})`,
      // A comment line: scripts that read only the export lines (or `eval` them) are unaffected.
      `# API reference: ${address}/_emulator/docs`,
      `export TFE_ADDRESS=${address}`,
      `export TFE_TOKEN=${config.adminToken}`,
      `export VAULT_ADDR=${address}`,
      `export VAULT_TOKEN=${config.rootToken}`,
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
    app.fastify.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => fail(`failed to start: ${(error as Error).message}`));
