import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const PLATFORM = join(ROOT, 'src', 'platform');

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Which platform domain folders each domain folder imports from (relative imports only). */
function domainImports(): Map<string, Set<string>> {
  const domains = readdirSync(PLATFORM).filter((name) => statSync(join(PLATFORM, name)).isDirectory());
  const edges = new Map(domains.map((domain) => [domain, new Set<string>()]));
  for (const domain of domains) {
    for (const file of filesUnder(join(PLATFORM, domain))) {
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
        const target = relative(PLATFORM, normalize(join(dirname(file), specifier as string))).split('/')[0] as string;
        if (target !== domain && edges.has(target)) edges.get(domain)?.add(target);
      }
    }
  }
  return edges;
}

describe('platform boundaries', () => {
  it('has no two platform domain folders importing each other', () => {
    const edges = domainImports();
    const pairs = [...edges].flatMap(([from, targets]) =>
      [...targets].filter((to) => from < to && edges.get(to)?.has(from)).map((to) => `${from} <-> ${to}`),
    );
    expect(pairs).toEqual([]);
    // The check sees real imports: workspaces do use their neighbours.
    expect([...(edges.get('workspaces') ?? [])].length).toBeGreaterThan(0);
  });

  it('fails the lint when a route file imports a repo, the platform imports the secrets tree, or control and seed overstep', async () => {
    // The project's own configuration, without type information: the import rules are syntactic, and building the
    // typed program of the whole tree for four snippets cost about as long as the rest of the suite's files together.
    const eslint = new ESLint({ cwd: ROOT, overrideConfig: tseslint.configs.disableTypeChecked });
    const lint = async (path: string, text: string) =>
      (await eslint.lintText(text, { filePath: join(ROOT, path) }))
        .flatMap((result) => result.messages)
        .filter((message) => message.ruleId === '@typescript-eslint/no-restricted-imports')
        .map((message) => message.message);

    const original = readFileSync(join(ROOT, 'src/platform/run-tasks/routes.ts'), 'utf8');
    expect(await lint('src/platform/run-tasks/routes.ts', original)).toEqual([]);
    const withRepo = `import { listRunTasks } from './repo.js';\nexport const leak = listRunTasks;\n${original}`;
    expect(await lint('src/platform/run-tasks/routes.ts', withRepo)).toEqual([expect.stringContaining('Routes call services')]);
    // Naming a repo's type stays allowed.
    expect(await lint('src/platform/run-tasks/routes.ts', `import type { RunTaskRow } from './repo.js';\n${original}`)).toEqual([]);

    const service = readFileSync(join(ROOT, 'src/platform/tags/service.ts'), 'utf8');
    const withSecrets = `import { TokenStore } from '../../secrets/tokens/token-store.js';\nexport const leak = TokenStore;\n${service}`;
    expect(await lint('src/platform/tags/service.ts', withSecrets)).toEqual([expect.stringContaining('shares only core/')]);

    // The control plane writes through services and reads through repo readers; never tables.
    const control = readFileSync(join(ROOT, 'src/control/runs.ts'), 'utf8');
    expect(await lint('src/control/runs.ts', control)).toEqual([]);
    const writer = `import { insertWorkspace } from '../platform/workspaces/repo.js';\nexport const leak = insertWorkspace;\n${control}`;
    expect(await lint('src/control/runs.ts', writer)).toEqual([expect.stringContaining('write through services')]);
    const table = `import { workspaces } from '../store/tables.js';\nexport const leak = workspaces;\n${control}`;
    expect(await lint('src/control/runs.ts', table)).toEqual([expect.stringContaining('not tables')]);

    // The harness's views read tables, and only read: services stay out.
    const view = readFileSync(join(ROOT, 'src/control/harness/world.ts'), 'utf8');
    expect(await lint('src/control/harness/world.ts', view)).toEqual([]);
    const withService = `import { TagService } from '../../platform/tags/service.js';\nexport const leak = TagService;\n${view}`;
    expect(await lint('src/control/harness/world.ts', withService)).toEqual([expect.stringContaining('views only read')]);

    // The seed is below the app: services and repo readers, no tables, no HTTP.
    const seed = readFileSync(join(ROOT, 'src/seed/world.ts'), 'utf8');
    expect(await lint('src/seed/world.ts', seed)).toEqual([]);
    expect(
      await lint('src/seed/world.ts', `import { runTasks } from '../store/tables.js';\nexport const leak = runTasks;\n${seed}`),
    ).toEqual([expect.stringContaining('not tables')]);
    expect(await lint('src/seed/world.ts', `import Fastify from 'fastify';\nexport const leak = Fastify;\n${seed}`)).toEqual([
      expect.stringContaining('nothing of HTTP'),
    ]);
  }, 120_000);
});
