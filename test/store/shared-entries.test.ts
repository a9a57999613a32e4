import { afterAll, describe, expect, it } from 'vitest';
import { MountStorage } from '../../src/secrets/storage/mount-storage.js';
import { markStoreReplaced } from '../../src/store/generation.js';
import { openStore } from '../../src/store/store.js';

// Hot read-only paths (a transit key on every encryption) read mount entries through
// `getShared`: one opened value shared between readers, never a stale one.

const store = openStore(':memory:');
afterAll(() => store.close());

describe('shared reads of sealed mount entries', () => {
  const storage = new MountStorage(store.db, 'mount-shared');

  it('give the stored value, frozen, and the same one to every reader', () => {
    storage.put('policy/a', { latest_version: 1, keys: { '1': { key: 'k1' } } });
    const first = storage.getShared<{ latest_version: number; keys: Record<string, { key: string }> }>('policy/a');
    expect(first).toEqual({ latest_version: 1, keys: { '1': { key: 'k1' } } });
    expect(storage.getShared('policy/a')).toBe(first);
    expect(() => {
      (first as { latest_version: number }).latest_version = 2;
    }).toThrow(TypeError);
    expect(() => {
      (first?.keys['1'] as { key: string }).key = 'changed';
    }).toThrow(TypeError);
    expect(storage.get('policy/a')).toEqual({ latest_version: 1, keys: { '1': { key: 'k1' } } });
  });

  it('see a rewrite, a deletion and a replaced store at once', () => {
    storage.put('policy/b', { latest_version: 1 });
    expect(storage.getShared('policy/b')).toEqual({ latest_version: 1 });
    storage.put('policy/b', { latest_version: 1 });
    storage.put('policy/b', { latest_version: 2 });
    expect(storage.getShared('policy/b')).toEqual({ latest_version: 2 });
    markStoreReplaced(store.sqlite);
    expect(storage.getShared('policy/b')).toEqual({ latest_version: 2 });
    storage.delete('policy/b');
    expect(storage.getShared('policy/b')).toBeUndefined();
  });

  it('inside a transaction read what the transaction wrote', () => {
    storage.put('policy/c', { latest_version: 1 });
    expect(storage.getShared('policy/c')).toEqual({ latest_version: 1 });
    store.sqlite.transaction(() => {
      storage.put('policy/c', { latest_version: 3 });
      expect(storage.getShared('policy/c')).toEqual({ latest_version: 3 });
    })();
    expect(storage.getShared('policy/c')).toEqual({ latest_version: 3 });
  });
});
