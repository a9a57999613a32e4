import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt's cost: node's defaults (N=2^14, r=8, p=1), about 16 MiB and tens of milliseconds a hash. */
const PARAMETERS: ScryptOptions = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `scrypt$N$r$p$<salt>$<hash>` (base64): the parameters travel with the hash so they can change later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMETERS);
  return ['scrypt', PARAMETERS.N, PARAMETERS.r, PARAMETERS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** A hash of nothing anyone knows: unknown users are checked against it so they cost the same time. */
let decoy: Promise<string> | undefined;

/** Whether `password` matches `stored`; `undefined` (no such user) takes as long and fails. */
export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  const [scheme, n, r, p, salt, hash] = (stored ?? (await decoy)).split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return stored !== undefined && actual.length === expected.length && timingSafeEqual(actual, expected);
}
