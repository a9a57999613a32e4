import { describe, expect, it } from 'vitest';
import { decodeStdBase64, decodeStdBase64Transient } from '../../../src/secrets/engines/transit/encoding.js';

/** Go's texts for what its strict standard decoder refuses. */
function errorOf(decode: (value: string) => Buffer, value: string): string | undefined {
  try {
    decode(value);
    return undefined;
  } catch (error) {
    return (error as { detail?: string }).detail;
  }
}

describe('decodeStdBase64Transient', () => {
  it.each(['', 'aGk=', 'aGk', 'aGkh', 'a+b/', Buffer.alloc(1024, 'x').toString('base64')])(
    'decodes %j as decodeStdBase64 does',
    (value) => {
      expect(errorOf(decodeStdBase64Transient, value)).toBe(errorOf(decodeStdBase64, value));
      if (errorOf(decodeStdBase64, value) === undefined) expect(decodeStdBase64Transient(value)).toEqual(decodeStdBase64(value));
    },
  );

  it.each(['not*base64', 'aGk=aGk=', 'a-b_', 'aGk==', 'aG=k', 'a'])('refuses %j with decodeStdBase64 text', (value) => {
    expect(errorOf(decodeStdBase64Transient, value)).toBeDefined();
    expect(errorOf(decodeStdBase64Transient, value)).toBe(errorOf(decodeStdBase64, value));
  });

  it('hands out bytes the next call overwrites (so callers use them at once)', () => {
    const first = decodeStdBase64Transient(Buffer.from('first').toString('base64'));
    expect(first.toString()).toBe('first');
    decodeStdBase64Transient(Buffer.from('other').toString('base64'));
    expect(first.toString()).toBe('other');
  });

  it('decodes a value longer than its shared buffer into bytes of its own', () => {
    const bytes = Buffer.alloc(20 * 1024, 7);
    const decoded = decodeStdBase64Transient(bytes.toString('base64'));
    expect(decoded).toEqual(bytes);
    decodeStdBase64Transient('aGk=');
    expect(decoded).toEqual(bytes);
  });
});
