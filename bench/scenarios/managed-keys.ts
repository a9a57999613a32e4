import { execFileSync } from 'node:child_process';
import { createHash, createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateAliasCommand, CreateKeyCommand, GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { CryptographyClient, KeyClient } from '@azure/keyvault-keys';
import pkcs11js from 'pkcs11js';
import type { BaselineServer, BenchRequest, BenchTarget, Scenario } from '../scenario.js';

/**
 * `test/sign` per managed key backend, each measured against its own baseline: the same work done
 * with the library directly (served by a bare HTTP server in the bench process, so both pay for
 * HTTP): pkcs11js against SoftHSM2, and the two cloud SDK clients against the stand-ins. test/sign
 * signs a random message and verifies the signature with the key's public key, so the baselines
 * verify too (with node:crypto, as understudy does).
 */

const PIN = '1234';
const TOKEN = 'bench-token';
const headers = (target: BenchTarget) => ({ 'x-vault-token': target.rootToken, 'content-type': 'application/json' });

/** SoftHSM2 with a token of our own; set up at import, before the runner starts understudy (which inherits SOFTHSM2_CONF). */
function softHsm(): string | null {
  try {
    const dir = mkdtempSync(join(tmpdir(), 'understudy-bench-softhsm-'));
    mkdirSync(join(dir, 'tokens'));
    writeFileSync(
      join(dir, 'softhsm2.conf'),
      `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`,
    );
    process.env.SOFTHSM2_CONF = join(dir, 'softhsm2.conf');
    execFileSync('softhsm2-util', ['--init-token', '--free', '--label', TOKEN, '--so-pin', '5678', '--pin', PIN], { stdio: 'ignore' });
    return null;
  } catch (error) {
    return `SoftHSM2 unavailable: ${(error as Error).message}`;
  }
}
const softHsmProblem = softHsm();

async function post(target: BenchTarget, path: string, body: unknown = {}): Promise<void> {
  const response = await fetch(`${target.baseUrl}/v1/${path}`, { method: 'POST', headers: headers(target), body: JSON.stringify(body) });
  if (response.status >= 400) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
}

/** A bare server that answers every request by running `work`: the same signature through the library. */
function libraryServer(work: () => Promise<void> | void): Promise<BaselineServer> {
  const server = createServer((_request, response) => {
    Promise.resolve()
      .then(work)
      .then(() => response.writeHead(204).end())
      .catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
        request: { method: 'POST', path: '/' },
        stop: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}

/** Creates the managed key and returns its test/sign request (the first test/sign generates the key). */
async function managedKey(target: BenchTarget, type: string, name: string, body: Record<string, unknown>): Promise<BenchRequest> {
  await post(target, `sys/managed-keys/${type}/${name}`, body);
  await post(target, `sys/managed-keys/${type}/${name}/test/sign`);
  return { method: 'POST', path: `/v1/sys/managed-keys/${type}/${name}/test/sign`, headers: headers(target), body: '{}' };
}

const pkcs11Key = {
  library: 'softhsm',
  token_label: TOKEN,
  pin: PIN,
  mechanism: '0x1041',
  curve: 'P256',
  key_label: 'bench-ec',
  allow_generate_key: true,
};
const kmsKey = {
  access_key: 'AKIDBENCH',
  secret_key: 'bench',
  key_type: 'ECDSA',
  curve: 'P256',
  kms_key: 'alias/bench',
  allow_generate_key: true,
};
const vaultKey = {
  tenant_id: 't',
  client_id: 'c',
  client_secret: 's',
  vault_name: 'bench',
  key_name: 'bench',
  key_type: 'RSA',
  key_bits: 2048,
  allow_generate_key: true,
};

/** The standing token for the key vault stand-in, as its token service issues it. */
async function vaultCredential(target: BenchTarget) {
  const response = await fetch(`${target.baseUrl}/_emulator/cloud-c-keyvault/t/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=c&client_secret=s&scope=x',
  });
  const { access_token: token } = (await response.json()) as { access_token: string };
  return { getToken: async () => ({ token, expiresOnTimestamp: Date.now() + 3_600_000 }) };
}

/** Throws unless `signature` verifies over `message` (ECDSA in DER, or RSA PKCS#1 v1.5), as test/sign checks. */
function mustVerify(key: KeyObject, message: Buffer, signature: Uint8Array, dsaEncoding: 'der' | 'ieee-p1363' = 'der'): void {
  if (!verify('sha256', message, { key, dsaEncoding }, signature)) throw new Error('the signature does not verify');
}

/** A session on the bench token with its EC key (generated here when missing), for the library baseline. */
function softHsmKey() {
  const module = new pkcs11js.PKCS11();
  module.load('/usr/lib/softhsm/libsofthsm2.so');
  module.C_Initialize();
  const slot = module.C_GetSlotList(true).find((handle) => module.C_GetTokenInfo(handle).label.trim() === TOKEN);
  if (!slot) throw new Error('bench token not found');
  const session = module.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
  module.C_Login(session, pkcs11js.CKU_USER, PIN);
  const find = () => {
    module.C_FindObjectsInit(session, [
      { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
      { type: pkcs11js.CKA_LABEL, value: 'bench-ec' },
    ]);
    const key = module.C_FindObjects(session);
    module.C_FindObjectsFinal(session);
    return key;
  };
  let key = find();
  if (!key) {
    const label = { type: pkcs11js.CKA_LABEL, value: 'bench-ec' };
    module.C_GenerateKeyPair(
      session,
      { mechanism: pkcs11js.CKM_EC_KEY_PAIR_GEN },
      [
        label,
        { type: pkcs11js.CKA_TOKEN, value: true },
        { type: pkcs11js.CKA_VERIFY, value: true },
        { type: pkcs11js.CKA_EC_PARAMS, value: Buffer.from('06082a8648ce3d030107', 'hex') },
      ],
      [
        label,
        { type: pkcs11js.CKA_TOKEN, value: true },
        { type: pkcs11js.CKA_SIGN, value: true },
        { type: pkcs11js.CKA_PRIVATE, value: true },
      ],
    );
    key = find();
  }
  if (!key) throw new Error('bench key not generated');
  module.C_FindObjectsInit(session, [
    { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PUBLIC_KEY },
    { type: pkcs11js.CKA_LABEL, value: 'bench-ec' },
  ]);
  const publicHandle = module.C_FindObjects(session);
  module.C_FindObjectsFinal(session);
  if (!publicHandle) throw new Error('bench public key not found');
  const [point] = module.C_GetAttributeValue(session, publicHandle, [{ type: pkcs11js.CKA_EC_POINT }]);
  // CKA_EC_POINT: an OCTET STRING around 04‖X‖Y; the SPKI of a P-256 key is a fixed prefix and that point.
  const raw = (point?.value as Buffer).subarray(-65);
  const publicKey = createPublicKey({
    key: Buffer.concat([Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex'), raw]),
    format: 'der',
    type: 'spki',
  });
  return { module, session, key, publicKey, close: () => module.C_Finalize() };
}

export const scenarios: Scenario[] = [
  {
    name: 'POST /v1/sys/managed-keys/pkcs11/:name/test/sign (SoftHSM2)',
    baseline: {
      name: 'pkcs11js C_Sign ECDSA P-256 (SoftHSM2)',
      start: async () => {
        if (softHsmProblem) throw new Error(softHsmProblem);
        const { module, session, key, publicKey, close } = softHsmKey();
        const server = await libraryServer(() => {
          const message = randomBytes(64);
          module.C_SignInit(session, { mechanism: pkcs11js.CKM_ECDSA }, key);
          const signature = module.C_Sign(session, createHash('sha256').update(message).digest(), Buffer.alloc(128));
          mustVerify(publicKey, message, signature, 'ieee-p1363');
        });
        return { ...server, stop: () => server.stop().then(close) };
      },
    },
    setup: async (target) => {
      if (softHsmProblem) throw new Error(softHsmProblem);
      return managedKey(target, 'pkcs11', 'bench-hsm', pkcs11Key);
    },
  },
  {
    name: 'POST /v1/sys/managed-keys/cloud-a-kms/:name/test/sign (stand-in)',
    baseline: {
      name: 'client-kms Sign ECDSA P-256 (stand-in)',
      start: async (target) => {
        const client = new KMSClient({
          region: 'us-east-1',
          endpoint: `${target.baseUrl}/_emulator/cloud-a-kms`,
          credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench' },
          maxAttempts: 1,
        });
        const created = await client.send(new CreateKeyCommand({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' }));
        await client.send(new CreateAliasCommand({ AliasName: 'alias/bench', TargetKeyId: created.KeyMetadata?.KeyId }));
        const found = await client.send(new GetPublicKeyCommand({ KeyId: 'alias/bench' }));
        const publicKey = createPublicKey({ key: Buffer.from(found.PublicKey ?? []), format: 'der', type: 'spki' });
        return libraryServer(async () => {
          const message = randomBytes(64);
          const signed = await client.send(
            new SignCommand({ KeyId: 'alias/bench', Message: message, MessageType: 'RAW', SigningAlgorithm: 'ECDSA_SHA_256' }),
          );
          mustVerify(publicKey, message, signed.Signature ?? new Uint8Array());
        });
      },
    },
    setup: (target) => managedKey(target, 'cloud-a-kms', 'bench-kms', kmsKey),
  },
  {
    name: 'POST /v1/sys/managed-keys/cloud-c-keyvault/:name/test/sign (stand-in)',
    baseline: {
      name: 'keyvault-keys sign RS256 (stand-in)',
      start: async (target) => {
        const options = { disableChallengeResourceVerification: true, allowInsecureConnection: true };
        const credential = await vaultCredential(target);
        const key = await new KeyClient(target.baseUrl, credential, options).createRsaKey('bench', {
          keySize: 2048,
          keyOps: ['sign', 'verify'],
        });
        const crypto = new CryptographyClient(key, credential, options);
        const { n, e } = key.key ?? {};
        const publicKey = createPublicKey({
          key: { kty: 'RSA', n: Buffer.from(n ?? []).toString('base64url'), e: Buffer.from(e ?? []).toString('base64url') },
          format: 'jwk',
        });
        return libraryServer(async () => {
          const message = randomBytes(64);
          const signed = await crypto.sign('RS256', createHash('sha256').update(message).digest());
          mustVerify(publicKey, message, signed.result);
        });
      },
    },
    setup: (target) => managedKey(target, 'cloud-c-keyvault', 'bench-akv', vaultKey),
  },
];
