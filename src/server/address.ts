import type { Config } from '../config.js';
import type { TlsMaterial } from './tls/material.js';

/** The address a client on this machine should use (a wildcard bind is reached via loopback). */
export function clientUrl(config: Pick<Config, 'host'>, port: number, tls: TlsMaterial | null): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * What a client needs in its environment: the addresses and tokens, and under auto TLS the CA
 * (`VAULT_CACERT`, read by the secrets CLI and hvac-based tools) and a bundle of the system roots
 * plus that CA (`SSL_CERT_FILE`, read by Go programs such as terraform and by OpenSSL-based tools).
 */
export function clientEnvironment(config: Pick<Config, 'adminToken' | 'rootToken'>, url: string, tls: TlsMaterial | null) {
  const env: Record<string, string> = { TFE_ADDRESS: url, TFE_TOKEN: config.adminToken, VAULT_ADDR: url };
  if (tls?.caFile) env['VAULT_CACERT'] = tls.caFile;
  if (tls?.bundleFile) env['SSL_CERT_FILE'] = tls.bundleFile;
  // Last: scripts (and the tests) take the VAULT_TOKEN line as the end of the banner.
  env['VAULT_TOKEN'] = config.rootToken;
  return env;
}

const LOOPBACK_OR_ANY = new Set(['127.0.0.1', 'localhost', '::1', '0.0.0.0', '::']);

/**
 * The address the platform publishes as its OIDC issuer and puts in every workload identity
 * token's `iss`: `UNDERSTUDY_PUBLIC_URL`, else the banner's address. Under HTTPS a local bind is
 * named `localhost` (the name terraform's `hostname` and most verifiers are given) rather than an
 * IP literal. One string for both, because verifiers compare them byte for byte.
 */
export function publicUrl(config: Pick<Config, 'host' | 'publicUrl'>, port: number, tls: TlsMaterial | null): string {
  if (config.publicUrl !== null) return config.publicUrl;
  if (tls && LOOPBACK_OR_ANY.has(config.host)) return `https://localhost:${port}`;
  return clientUrl(config, port, tls);
}
