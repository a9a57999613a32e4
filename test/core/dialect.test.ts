import { describe, expect, it } from 'vitest';
import { canonical, canonicalKeys, DIALECT_TERMS, spell, spellKeys } from '../../src/core/dialect.js';

describe('the dialect table', () => {
  it('maps every upstream spelling to its spec spelling and back', () => {
    for (const term of DIALECT_TERMS) {
      expect(canonical(term.upstream)).toBe(term.spec);
      expect(canonical(term.spec)).toBe(term.spec);
      expect(spell(term.spec, 'upstream')).toBe(term.upstream);
      expect(spell(term.spec, 'spec')).toBe(term.spec);
    }
  });

  it('has no spelling twice', () => {
    const words = DIALECT_TERMS.flatMap((term) => [term.spec, term.upstream]);
    expect(new Set(words).size).toBe(words.length);
  });

  it('renames keys on the way in and out, leaving others alone', () => {
    expect(canonicalKeys({ 'terraform-version': '1.9.0', name: 'w' })).toEqual({ 'tool-version': '1.9.0', name: 'w' });
    expect(spellKeys({ 'tool-version': '1.9.0', name: 'w' }, 'upstream')).toEqual({ 'terraform-version': '1.9.0', name: 'w' });
    expect(spellKeys({ 'tool-version': '1.9.0' }, 'spec')).toEqual({ 'tool-version': '1.9.0' });
  });
});
