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

  // A view keeps the last value it read (a request's transit key, read by its existence check and
  // again by its handler); any write through any view of the store, or a replaced store, drops it.
  it('read again through the same view see writes made through another view', () => {
    const reader = new MountStorage(store.db, 'mount-kept');
    const writer = new MountStorage(store.db, 'mount-kept');
    writer.put('policy/d', { latest_version: 1 });
    expect(reader.getShared('policy/d')).toEqual({ latest_version: 1 });
    expect(reader.getShared('policy/d')).toEqual({ latest_version: 1 });
    writer.put('policy/d', { latest_version: 2 });
    expect(reader.getShared('policy/d')).toEqual({ latest_version: 2 });
    writer.sealedPut('policy/d', { latest_version: 3 })();
    expect(reader.getShared('policy/d')).toEqual({ latest_version: 3 });
    writer.delete('policy/d');
    expect(reader.getShared('policy/d')).toBeUndefined();
    writer.put('policy/d', { latest_version: 4 });
    expect(reader.getShared('policy/d')).toEqual({ latest_version: 4 });
    writer.deletePrefix('policy/');
    expect(reader.getShared('policy/d')).toBeUndefined();
    writer.put('policy/d', { latest_version: 5 });
    expect(reader.getShared('policy/d')).toEqual({ latest_version: 5 });
    writer.clear();
    expect(reader.getShared('policy/d')).toBeUndefined();
  });

  it('read again through the same view see a write to another mount and a replaced store', () => {
    const reader = new MountStorage(store.db, 'mount-kept-2');
    reader.put('policy/e', { latest_version: 1 });
    expect(reader.getShared('policy/e')).toEqual({ latest_version: 1 });
    // A restore writes rows behind every view, then marks the store replaced.
    const sealed = new MountStorage(store.db, 'elsewhere').put('policy/e', { latest_version: 7 });
    store.sqlite
      .prepare('UPDATE secret_entries SET value = ? WHERE mount_uuid = ? AND key = ?')
      .run(JSON.stringify(sealed), 'mount-kept-2', 'policy/e');
    markStoreReplaced(store.sqlite);
    expect(reader.getShared('policy/e')).toEqual({ latest_version: 7 });
  });

  it('read again through the same view inside a transaction see what it wrote and what it rolled back', () => {
    const reader = new MountStorage(store.db, 'mount-kept-3');
    reader.put('policy/f', { latest_version: 1 });
    expect(reader.getShared('policy/f')).toEqual({ latest_version: 1 });
    expect(() =>
      store.sqlite.transaction(() => {
        new MountStorage(store.db, 'mount-kept-3').put('policy/f', { latest_version: 2 });
        expect(reader.getShared('policy/f')).toEqual({ latest_version: 2 });
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect(reader.getShared('policy/f')).toEqual({ latest_version: 1 });
  });
});
