import { afterAll, describe, expect, it } from 'vitest';
import { MountStorage } from '../../src/secrets/storage/mount-storage.js';
import { markStoreReplaced } from '../../src/store/generation.js';
import { openStore } from '../../src/store/store.js';

// An entry kept at its write (`remember`: a wrap's answer, read by its unwrap without a
// statement) is read as the table holds it whatever happens to the entry afterwards.

const store = openStore(':memory:');
afterAll(() => store.close());

describe('mount entries remembered at their write', () => {
  const MOUNT = 'mount-remembered';
  const table = (key: string, mount = MOUNT): unknown => {
    const text = store.sqlite.prepare('SELECT value FROM secret_entries WHERE mount_uuid = ? AND key = ?').pluck().get(mount, key);
    return typeof text === 'string' ? JSON.parse(text) : undefined;
  };
  /** Writes `value` as a wrap does (sealed, written, then remembered) through `writer`; returns what was stored. */
  const writeRemembered = (writer: MountStorage, key: string, value: unknown): unknown => {
    const sealed = writer.seal(value);
    writer.putSealed(key, sealed)();
    writer.remember(key, sealed);
    return sealed;
  };
  const reader = new MountStorage(store.db, MOUNT);
  const writer = new MountStorage(store.db, MOUNT);

  it('are read without a statement while unchanged', () => {
    const sealed = writeRemembered(writer, 'a/response', { response: 'first' });
    store.sqlite
      .prepare('UPDATE secret_entries SET value = ? WHERE mount_uuid = ? AND key = ?')
      .run('"behind its back"', MOUNT, 'a/response');
    // Only a write behind the store's back (which nothing in the server makes) shows the entry was kept.
    expect(reader.stored('a/response')).toEqual(sealed);
    writer.delete('a/response');
  });

  it('read as the table holds them after a write, a delete, a cubbyhole revocation or a mount cleared', () => {
    const steps: [string, (key: string) => void][] = [
      ['put', (key) => writer.put(key, { response: 'second' })],
      ['sealedPut', (key) => writer.sealedPut(key, { response: 'third' })()],
      ['delete', (key) => writer.delete(key)],
      ['deletePrefix', (key) => writer.deletePrefix(`${key.split('/')[0]}/`)],
      ['clear', () => writer.clear()],
    ];
    for (const [name, step] of steps) {
      const key = `${name}/response`;
      writeRemembered(writer, key, { response: 'first' });
      expect(reader.stored(key), name).toEqual(table(key));
      step(key);
      expect(reader.stored(key), name).toEqual(table(key));
      expect(reader.get(key), name).toEqual(name.startsWith('delete') || name === 'clear' ? undefined : writer.get(key));
    }
  });

  it('read as the table holds them after a write rolled back, and are never kept inside a transaction', () => {
    const sealed = writeRemembered(writer, 'rolled/response', { response: 'first' });
    expect(() =>
      store.db.transaction((tx) => {
        new MountStorage(tx, MOUNT).put('rolled/response', { response: 'rolled back' });
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(reader.stored('rolled/response')).toEqual(sealed);
    expect(reader.get('rolled/response')).toEqual({ response: 'first' });

    expect(() =>
      store.sqlite.transaction(() => {
        writeRemembered(writer, 'inside/response', { response: 'never committed' });
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect(reader.stored('inside/response')).toBeUndefined();
  });

  it('are forgotten when the store is replaced', () => {
    writeRemembered(writer, 'replaced/response', { response: 'first' });
    // A restore writes rows behind every view, then marks the store replaced.
    store.sqlite.prepare('DELETE FROM secret_entries WHERE key = ?').run('replaced/response');
    markStoreReplaced(store.sqlite);
    expect(reader.stored('replaced/response')).toBeUndefined();
  });
});
