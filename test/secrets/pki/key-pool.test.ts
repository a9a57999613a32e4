import { afterEach, describe, expect, it } from 'vitest';
import { KeyPool } from '../../../src/secrets/engines/pki/key-pool.js';

describe('the key pool', () => {
  const pools: KeyPool[] = [];
  const pool = (size: number) => {
    const created = new KeyPool(size, 2);
    pools.push(created);
    return created;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((item) => item.close()));
  });

  it('does nothing until a key type is used, then fills to its size in worker threads', async () => {
    const keys = pool(4);
    const spec = { type: 'rsa' as const, bits: 2048 };
    expect(keys.available(spec)).toBe(0);
    expect(keys.threadCount).toBe(0);
    keys.warm(spec);
    expect(keys.threadCount).toBe(2);
    await keys.whenAvailable(spec, 4);
    expect(keys.available(spec)).toBe(4);
    const key = await keys.take(spec);
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    // Taking one starts its replacement.
    await keys.whenAvailable(spec, 4);
    expect(keys.available(spec)).toBe(4);
  });

  // How fast a pooled key comes back is the bench's business (bench/scenarios/pki.ts issues after
  // the pool filled); here: which keys came from the pool and which waited for a worker.
  it('serves a burst from the pool and generates on demand once it is empty', async () => {
    const keys = pool(3);
    const spec = { type: 'rsa' as const, bits: 2048 };
    keys.warm(spec);
    await keys.whenAvailable(spec, 3);
    const burst = await Promise.all([keys.take(spec), keys.take(spec), keys.take(spec)]);
    expect(burst.map((key) => key.asymmetricKeyDetails?.modulusLength)).toEqual([2048, 2048, 2048]);
    expect(new Set(burst.map((key) => key.export({ format: 'pem', type: 'pkcs8' }))).size).toBe(3);
    // The burst waited for no worker: every key was ready.
    expect(keys.takenKeys).toEqual({ pooled: 3, onDemand: 0 });
    expect(keys.available(spec)).toBe(0);
    // A fourth key has to be generated: no refill can have arrived, as a worker's key comes in an
    // event and none ran since the burst (it resolved in promise callbacks alone).
    const onDemand = await keys.take(spec);
    expect(onDemand.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(keys.takenKeys).toEqual({ pooled: 3, onDemand: 1 });
  });

  it('size 0 still generates off the event loop, and close fails what is pending', async () => {
    const keys = pool(0);
    const spec = { type: 'ec' as const, bits: 224 };
    expect((await keys.take(spec)).asymmetricKeyDetails?.namedCurve).toBe('secp224r1');
    expect(keys.available(spec)).toBe(0);
    const pending = keys.take({ type: 'rsa', bits: 4096 });
    const refused = expect(pending).rejects.toThrow('the key pool is closed');
    await keys.close();
    await refused;
    expect(keys.threadCount).toBe(0);
  });

  it('a wait for ready keys ends when the pool closes, refused', async () => {
    const keys = pool(2);
    const spec = { type: 'rsa' as const, bits: 3072 };
    const waiting = expect(keys.whenAvailable(spec, 2)).rejects.toThrow('the key pool is closed');
    await keys.close();
    await waiting;
    await expect(keys.whenAvailable(spec, 1)).rejects.toThrow('the key pool is closed');
    await expect(keys.whenAvailable(spec, 0)).resolves.toBeUndefined();
  });

  it('makes EC keys when taken, each a new one, without worker threads or a pool', async () => {
    const keys = pool(20);
    const spec = { type: 'ec' as const, bits: 256 };
    keys.warm(spec);
    const taken = await Promise.all([keys.take(spec), keys.take(spec)]);
    expect(taken.map((key) => key.asymmetricKeyDetails?.namedCurve)).toEqual(['prime256v1', 'prime256v1']);
    expect(taken[0]?.export({ format: 'pem', type: 'pkcs8' })).not.toBe(taken[1]?.export({ format: 'pem', type: 'pkcs8' }));
    expect((await keys.take({ type: 'ec', bits: 384 })).asymmetricKeyDetails?.namedCurve).toBe('secp384r1');
    expect(keys.threadCount).toBe(0);
    expect(keys.available(spec)).toBe(0);
  });

  it('pre-generates only common sizes: RSA-8192 and P-521 are made when taken, never pooled', async () => {
    const keys = pool(20);
    const big = { type: 'rsa' as const, bits: 8192 };
    keys.warm(big);
    expect(keys.threadCount).toBe(0);
    const curve = { type: 'ec' as const, bits: 521 };
    expect((await keys.take(curve)).asymmetricKeyDetails?.namedCurve).toBe('secp521r1');
    // The key was generated for the request alone: nothing refills behind it. Pooled keys come
    // only from worker threads, and none was started, so none can arrive later.
    expect(keys.threadCount).toBe(0);
    expect(keys.available(curve)).toBe(0);
    expect(keys.available(big)).toBe(0);
  });
});
