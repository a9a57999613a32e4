import { X509Certificate, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { rootCertificates } from 'node:tls';
import { issueCa, issueServer, newKeyPair, privateKeyPem } from './certificates.js';

/** What HTTPS mode serves with, and the files a client trusts it through. */
export interface TlsMaterial {
  key: string;
  cert: string;
  /** `auto`: understudy's own CA issued the certificate; `files`: UNDERSTUDY_TLS_CERT/_KEY. */
  source: 'auto' | 'files';
  /** The CA certificate clients trust (VAULT_CACERT); auto mode only. */
  caFile: string | null;
  /** The system roots plus the CA, for SSL_CERT_FILE (Go programs such as terraform); auto mode only. */
  bundleFile: string | null;
  /** The names and addresses the certificate is for (auto mode). */
  hosts: string[];
}

export interface TlsSettings {
  tls: 'off' | 'auto';
  tlsHosts: string | null;
  tlsCert: string | null;
  tlsKey: string | null;
  tlsDir: string | null;
  store: string;
  host: string;
}

export class TlsError extends Error {}

/** A server certificate this close to its end is issued afresh at start. */
const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;
const SYSTEM_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

/**
 * Where auto mode keeps its CA and certificates: UNDERSTUDY_TLS_DIR, else `tls/` beside the store
 * file, else (an in-memory store) `~/.understudy/tls`, so the CA a user trusted once stays the same.
 */
export function tlsDirectory(settings: Pick<TlsSettings, 'tlsDir' | 'store'>): string {
  if (settings.tlsDir !== null) return resolve(settings.tlsDir);
  if (settings.store === ':memory:') return join(homedir(), '.understudy', 'tls');
  return join(dirname(resolve(settings.store)), 'tls');
}

/** The names the certificate covers: loopback in every spelling, the bind address, and UNDERSTUDY_TLS_HOSTS. */
export function certificateHosts(settings: Pick<TlsSettings, 'tlsHosts' | 'host'>): string[] {
  const extra = (settings.tlsHosts ?? '')
    .split(',')
    .map((host) => host.trim())
    .filter((host) => host !== '');
  const bind = settings.host === '0.0.0.0' || settings.host === '::' ? [] : [settings.host];
  return [...new Set(['localhost', '127.0.0.1', '::1', ...bind, ...extra])];
}

/** The TLS material for this start, or null when HTTPS is off. */
export function prepareTls(settings: TlsSettings): TlsMaterial | null {
  if ((settings.tlsCert === null) !== (settings.tlsKey === null)) {
    throw new TlsError('UNDERSTUDY_TLS_CERT and UNDERSTUDY_TLS_KEY must be set together');
  }
  if (settings.tlsCert !== null && settings.tlsKey !== null) return ownFiles(settings.tlsCert, settings.tlsKey);
  if (settings.tls === 'off') return null;
  return autoMaterial(tlsDirectory(settings), certificateHosts(settings));
}

function ownFiles(certFile: string, keyFile: string): TlsMaterial {
  const read = (file: string, name: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new TlsError(`${name}=${file} cannot be read: ${(error as Error).message}`);
    }
  };
  const cert = read(certFile, 'UNDERSTUDY_TLS_CERT');
  const key = read(keyFile, 'UNDERSTUDY_TLS_KEY');
  try {
    if (!matches(new X509Certificate(cert), createPrivateKey(key))) throw new Error('the key is not the certificate’s');
  } catch (error) {
    throw new TlsError(`UNDERSTUDY_TLS_CERT/_KEY are not a usable certificate and key: ${(error as Error).message}`);
  }
  return { key, cert, source: 'files', caFile: null, bundleFile: null, hosts: [] };
}

function matches(certificate: X509Certificate, key: KeyObject): boolean {
  const spki = (k: KeyObject) => k.export({ format: 'der', type: 'spki' });
  return spki(certificate.publicKey).equals(spki(createPublicKey(key)));
}

/** Group and other write bits: whoever holds them could have put their own CA key in place. */
const WRITABLE_BY_OTHERS = 0o022;

/**
 * The directory holds the CA's private key, so nobody but this user may write to it. A directory
 * that others could write (mode 0777) and holds no CA key yet is tightened to 0700; a CA key
 * already in one, or a key file others could write, may be someone else's and is refused (at
 * every start, until it is removed) rather than trusted.
 */
function secureDirectory(directory: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const found = statSync(directory);
  const keyFile = join(directory, 'ca-key.pem');
  const key = existsSync(keyFile) ? statSync(keyFile) : undefined;
  const problem =
    (found.mode & WRITABLE_BY_OTHERS) !== 0 && key !== undefined
      ? `was writable by others (mode ${(found.mode & 0o777).toString(8).padStart(4, '0')}), so its ca-key.pem cannot be trusted`
      : key !== undefined && (key.mode & WRITABLE_BY_OTHERS) !== 0
        ? `holds a ca-key.pem others can write (mode ${(key.mode & 0o777).toString(8).padStart(4, '0')}), which cannot be trusted`
        : undefined;
  // Refused before tightening: a later start must not trust the same key because the mode changed.
  if (problem) throw new TlsError(`UNDERSTUDY_TLS_DIR ${directory} ${problem}: remove it (a new CA is made) or point to another directory`);
  if ((found.mode & 0o077) !== 0) chmodSync(directory, 0o700);
}

function autoMaterial(directory: string, hosts: string[]): TlsMaterial {
  secureDirectory(directory);
  const file = (name: string) => join(directory, name);
  const ca = loadOrCreateCa(file('ca.pem'), file('ca-key.pem'));
  const server = loadOrIssueServer(file('server.pem'), file('server-key.pem'), hosts, ca);
  const bundle = `${systemRoots().trimEnd()}\n${ca.pem}`;
  if (!existsSync(file('bundle.pem')) || readFileSync(file('bundle.pem'), 'utf8') !== bundle) writeAtomically(file('bundle.pem'), bundle);
  return { ...server, source: 'auto', caFile: file('ca.pem'), bundleFile: file('bundle.pem'), hosts };
}

/**
 * The CA is made once. Two servers starting at once against the same directory agree on one: the
 * key is put in place with a link (which fails if another got there first), and the loser waits
 * for the winner's certificate.
 */
function loadOrCreateCa(certFile: string, keyFile: string): { pem: string; key: KeyObject } {
  if (!existsSync(keyFile)) {
    const pair = newKeyPair();
    const pem = issueCa(pair);
    if (placeOnce(keyFile, privateKeyPem(pair.privateKey), 0o600)) {
      writeAtomically(certFile, pem);
      return { pem, key: pair.privateKey };
    }
  }
  const key = createPrivateKey(readFileSync(keyFile, 'utf8'));
  const pem = waitForFile(certFile);
  if (!matches(new X509Certificate(pem), key)) {
    throw new TlsError(`${certFile} does not belong to ${keyFile}; delete both to have a new CA made`);
  }
  return { pem, key };
}

function loadOrIssueServer(certFile: string, keyFile: string, hosts: string[], ca: { pem: string; key: KeyObject }) {
  if (existsSync(certFile) && existsSync(keyFile)) {
    const cert = readFileSync(certFile, 'utf8');
    const key = readFileSync(keyFile, 'utf8');
    if (stillGood(cert, key, hosts, ca.pem)) return { cert, key };
  }
  const pair = newKeyPair();
  const cert = issueServer(hosts, pair.privateKey, ca);
  const key = privateKeyPem(pair.privateKey);
  writeAtomically(keyFile, key, 0o600);
  writeAtomically(certFile, cert);
  return { cert, key };
}

/** The certificate is the key's, the CA's, for exactly these hosts, and not about to expire. */
function stillGood(cert: string, key: string, hosts: string[], caPem: string): boolean {
  try {
    const certificate = new X509Certificate(cert);
    const names = (certificate.subjectAltName ?? '').split(', ').map((entry) => entry.replace(/^(DNS|IP Address):/, ''));
    const sameHosts = names.length === hosts.length && hosts.every((host) => names.includes(host) || names.includes(expandIpv6(host)));
    return (
      sameHosts &&
      certificate.verify(new X509Certificate(caPem).publicKey) &&
      matches(certificate, createPrivateKey(key)) &&
      new Date(certificate.validTo).getTime() - Date.now() > RENEW_BEFORE_MS
    );
  } catch {
    return false;
  }
}

/** Node writes IPv6 SAN entries in full (`0:0:…:1`); `::1` must compare equal. */
function expandIpv6(host: string): string {
  if (!host.includes(':')) return host;
  const [head = '', tail = ''] = host.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const middle = Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...(host.includes('::') ? middle : []), ...right].map((part) => part.replace(/^0+(?=.)/, '').toUpperCase()).join(':');
}

function systemRoots(): string {
  if (existsSync(SYSTEM_BUNDLE)) return readFileSync(SYSTEM_BUNDLE, 'utf8');
  return rootCertificates.join('\n');
}

function writeAtomically(file: string, content: string, mode = 0o644): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode });
  renameSync(temporary, file);
}

/** Writes `file` only if it does not exist yet; false when another process made it first. */
function placeOnce(file: string, content: string, mode: number): boolean {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode });
  try {
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

function waitForFile(file: string): string {
  const deadline = Date.now() + 5_000;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new TlsError(`${file} is missing beside its key; delete the key to have a new CA made`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
  return readFileSync(file, 'utf8');
}
