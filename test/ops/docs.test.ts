import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { VARIABLES } from '../../src/config.js';
import { DIALECT_TERMS } from '../../src/core/dialect.js';
import { EDITION_RULES } from '../../src/core/edition.js';
import { BEHAVIOUR_DIFFERENCES } from '../../src/platform/dialect-behaviours.js';
import { ROOT } from './process.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const envExample = readFileSync(join(ROOT, '.env.example'), 'utf8');
const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

/** The cells of every Markdown table row in the README, trimmed. */
const tableRows = readme
  .split('\n')
  .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
  .map((line) =>
    line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim()),
  );

const code = (text: string) => `\`${text}\``;

describe('the README and .env.example stay true to the code', () => {
  it.each(VARIABLES.map((variable) => [variable.name, variable] as const))(
    '%s is in the configuration table with its default',
    (name, variable) => {
      const row = tableRows.find((cells) => cells[0] === code(name));
      expect(row, `README has no row for ${name}`).toBeDefined();
      expect(row?.[1]).toBe(variable.default === null ? 'unset' : code(variable.default));
      for (const alias of variable.aliases ?? []) expect(row?.[2]).toContain(code(alias));
    },
  );

  it.each(VARIABLES.map((variable) => [variable.name, variable] as const))(
    '%s is in .env.example, commented, with its default',
    (name, variable) => {
      expect(envExample.split('\n')).toContain(`# ${name}=${variable.default ?? ''}`);
      for (const alias of variable.aliases ?? []) expect(envExample).toContain(alias);
    },
  );

  it('.env.example sets nothing as shipped, so copying it to .env changes no default', () => {
    expect(parseEnv(envExample)).toEqual({});
  });

  it('lists every dialect pair, spec spelling first', () => {
    for (const term of DIALECT_TERMS) {
      const row = tableRows.find((cells) => cells[0] === code(term.spec));
      expect(row, `README dialect table has no row for ${term.spec}`).toEqual([code(term.spec), code(term.upstream), term.where]);
    }
  });

  it('lists every behaviour the upstream dialect changes', () => {
    for (const difference of BEHAVIOUR_DIFFERENCES) {
      expect(tableRows).toContainEqual([difference.what, difference.spec, difference.upstream]);
    }
  });

  it('lists every difference between the editions', () => {
    for (const rule of EDITION_RULES) {
      expect(tableRows).toContainEqual([rule.what, rule['self-hosted'], rule.hosted]);
    }
  });

  it('names only npm scripts that exist', () => {
    const named = [...readme.matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1] as string);
    expect(named.length).toBeGreaterThan(0);
    for (const script of named) expect(Object.keys(packageJson.scripts), `npm run ${script}`).toContain(script);
  });
});
