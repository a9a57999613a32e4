import { describe, expect, it } from 'vitest';
import { unknownVariables, VARIABLES } from '../../src/config.js';

describe('unknown UNDERSTUDY_* variables', () => {
  it('names a typo (and only UNDERSTUDY_* names no setting reads), sorted, for the one start-up warning', () => {
    const env = {
      UNDERSTUDY_PROT: '9000',
      UNDERSTUDY_PORT: '8300',
      UNDERSTUDY_DIALEKT: 'upstream',
      VAULT_DEV_ROOT_TOKEN_ID: 'root',
      HOME: '/root',
    };
    expect(unknownVariables(env)).toEqual(['UNDERSTUDY_DIALEKT', 'UNDERSTUDY_PROT']);
  });

  it('knows every documented variable and alias', () => {
    const all = Object.fromEntries(
      VARIABLES.flatMap((variable) => [variable.name, ...(variable.aliases ?? [])]).map((name) => [name, 'x']),
    );
    expect(unknownVariables(all)).toEqual([]);
  });
});
