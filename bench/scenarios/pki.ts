import { createPublicKey, generateKeyPair, randomBytes, sign, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import * as asn from '@peculiar/asn1-x509';
import type { BaselineServer, BenchTarget, Scenario } from '../scenario.js';

/**
 * Certificate issuance with EC P-256 and RSA-2048 for BENCH_DURATION after the key pool has
 * filled (so the first second is served from the pool, the rest bounded by key generation on
 * every core), each next to the same work without understudy: native key generation plus
 * signing behind a bare HTTP server, in the same run.
 */

const generate = promisify(generateKeyPair);

type Kind = { label: string; type: 'ec' | 'rsa'; bits: number; fillMs: number };
const KINDS: Kind[] = [
  { label: 'EC P-256', type: 'ec', bits: 256, fillMs: 2_000 },
  // 20 RSA-2048 keys at ~220 ms each on two workers take ~2.5 s idle; a busy machine needs far more.
  { label: 'RSA-2048', type: 'rsa', bits: 2048, fillMs: 20_000 },
];

async function newKey(kind: Kind): Promise<KeyObject> {
  const options = kind.type === 'rsa' ? { modulusLength: kind.bits } : { namedCurve: 'prime256v1' };
  return (await generate(kind.type as 'rsa', options as { modulusLength: number })).privateKey;
}

/**
 * The same work without understudy: a bare HTTP server that generates a key natively (libuv
 * pool, async) and signs one certificate per request, measured under the same load. The
 * certificate is built with the X.509 library called directly (not understudy's own encoder: a
 * yardstick made of the code under test moves with it).
 */
async function nativeServer(kind: Kind): Promise<BaselineServer> {
  const caKey = await newKey({ ...kind, type: 'ec', bits: 256 });
  const commonName = (value: string) =>
    new asn.Name([
      new asn.RelativeDistinguishedName([
        new asn.AttributeTypeAndValue({ type: '2.5.4.3', value: new asn.AttributeValue({ utf8String: value }) }),
      ]),
    ]);
  const issuer = commonName('bench CA');
  const ecdsaWithSha256 = new asn.AlgorithmIdentifier({ algorithm: '1.2.840.10045.4.3.2' });
  const extension = (oid: string, critical: boolean, value: unknown) =>
    new asn.Extension({ extnID: oid, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
  const server = createServer((_request, response) => {
    void (async () => {
      const key = await newKey(kind);
      const publicKey = createPublicKey(key).export({ type: 'spki', format: 'der' });
      const now = new Date();
      const tbs = new asn.TBSCertificate({
        version: asn.Version.v3,
        serialNumber: new Uint8Array(randomBytes(16)).buffer,
        signature: ecdsaWithSha256,
        issuer,
        validity: new asn.Validity({ notBefore: now, notAfter: new Date(now.getTime() + 3_600_000) }),
        subject: commonName('leaf.bench.test'),
        subjectPublicKeyInfo: AsnConvert.parse(publicKey, asn.SubjectPublicKeyInfo),
        extensions: new asn.Extensions([extension(asn.id_ce_basicConstraints, true, new asn.BasicConstraints({ cA: false }))]),
      });
      const signature = sign('sha256', Buffer.from(AsnConvert.serialize(tbs)), caKey);
      const certificate = new asn.Certificate({
        tbsCertificate: tbs,
        signatureAlgorithm: ecdsaWithSha256,
        signatureValue: new Uint8Array(signature).buffer,
      });
      const der = Buffer.from(AsnConvert.serialize(certificate));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ certificate: der.toString('base64') }));
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    request: { method: 'POST', path: '/issue' },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function call(target: BenchTarget, method: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${target.baseUrl}/v1/${path}`, {
    method,
    headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
}

/** A mount with an EC root and a role for `kind`; one issue proves it works and starts the pool. */
async function prepare(target: BenchTarget, kind: Kind, mount: string) {
  await call(target, 'POST', `sys/mounts/${mount}`, { type: 'pki', config: { max_lease_ttl: '87600h' } });
  await call(target, 'POST', `${mount}/root/generate/internal`, { common_name: 'bench root', key_type: 'ec', ttl: '8760h' });
  await call(target, 'POST', `${mount}/roles/bench`, {
    allowed_domains: 'bench.test',
    allow_subdomains: true,
    key_type: kind.type,
    key_bits: kind.bits,
    ttl: '1h',
  });
  await call(target, 'POST', `${mount}/issue/bench`, { common_name: 'warm.bench.test' });
  // Let the workers fill the pool, as it would be after a quiet moment.
  await new Promise((resolve) => setTimeout(resolve, kind.fillMs));
  return {
    method: 'POST',
    path: `/v1/${mount}/issue/bench`,
    headers: { 'x-vault-token': target.rootToken, 'content-type': 'application/json' },
    body: JSON.stringify({ common_name: 'www.bench.test' }),
  };
}

export const scenarios: Scenario[] = KINDS.map((kind, index): Scenario => ({
  name: `POST /v1/pki/issue/:role ${kind.label}`,
  baseline: { name: `native ${kind.label} keygen + sign behind a bare HTTP server`, start: () => nativeServer(kind) },
  setup: (target) => prepare(target, kind, `bench-pki-${index}`),
}));
