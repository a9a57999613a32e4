import { randomBytes } from 'node:crypto';

/**
 * Random bytes for IVs and nonces, cut from a pool filled 4 KB at a time: each `randomBytes` call
 * is a separate trip into OpenSSL's generator, which profiles showed costing more than the cipher
 * it feeds (a batch encryption's nonces; the two IVs a response wrap seals with, 40 µs of a wrap
 * and unwrap). Each fill is a new buffer, so bytes handed out are never handed out again or
 * overwritten. Process-wide, like Node's own cache behind `randomInt`: it holds no server's state.
 */
const POOL_BYTES = 4092;
let pool = Buffer.alloc(0);
let offset = 0;

export function pooledRandomBytes(size: number): Buffer {
  if (size > POOL_BYTES) return randomBytes(size);
  if (offset + size > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + size);
  offset += size;
  return bytes;
}
