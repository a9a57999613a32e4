// @ts-check
// Lint configuration: `npm run lint` (part of `npm test`). Layout is Prettier's job (`npm run format`);
// this file holds the rules that catch mistakes, and the one layout rule Prettier cannot enforce: line length,
// which also covers the comments and strings Prettier never wraps.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const PLATFORM_ONLY = { group: ['**/secrets/**'], message: 'The platform tree shares only core/ and store/ with the secrets tree.' };
const SECRETS_ONLY = { group: ['**/platform/**'], message: 'The secrets tree shares only core/ and store/ with the platform tree.' };
const ROUTES_USE_SERVICES = {
  group: ['**/repo.js', '**/store/tables.js', '**/store/schema/**'],
  allowTypeImports: true,
  message: 'Routes call services (context.services), never repos or tables.',
};

// The control plane and the seed sit above both trees. They write through services (the platform's
// door, the secrets tree's stores) and may look rows up with a repo's readers (`find…`, `list…`);
// a repo's writers, the store's tables and schema stay out, e.g. `import { insertWorkspace } from
// '../platform/workspaces/repo.js'` in src/control/runs.ts or `import { workspaces } from
// '../store/tables.js'` in src/seed/world.ts. The harness's read-only views (the world, a run, the
// journal's subjects) read tables directly, past any caller's permissions; they never call services.
const READERS_ONLY = {
  group: ['**/repo.js'],
  allowImportNamePattern: '^(find|list)',
  allowTypeImports: true,
  message: 'The control plane and the seed write through services; from a repo they import only its find…/list… readers.',
};
const NO_TABLES = {
  group: ['**/store/tables.js', '**/store/schema/**'],
  allowTypeImports: true,
  message: 'The control plane (outside its harness views) and the seed reach the store through services and repo readers, not tables.',
};
const VIEWS_READ_ONLY = {
  group: ['**/service.js', '**/services.js'],
  allowTypeImports: true,
  message: 'The harness views only read (tables, repo readers); services apply permissions and write, so they stay out.',
};
const BELOW_THE_APP = {
  group: ['**/app.js', '**/control/**', '**/server/**', 'fastify'],
  allowTypeImports: true,
  message: 'The seed is applied by the app: it knows nothing of HTTP, the server or the control plane.',
};
const NOT_THE_APP = { group: ['**/app.js'], allowTypeImports: true, message: 'The app registers the control plane, not the reverse.' };

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'data/', '.bench/', 'migrations/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        // Type information comes from tsconfig.json; the plain-JS scripts outside it get a default project.
        projectService: { allowDefaultProject: ['scripts/*.mjs', 'eslint.config.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // The team's limit. Core's max-len is deprecated but kept until ESLint 11; it needs no extra plugin.
      'max-len': ['error', { code: 140, tabWidth: 2 }],
      // Fastify handlers, hooks and plugins are async by contract (a returned promise is how they answer),
      // as are the engines' interfaces; many such functions have nothing to await, on purpose.
      '@typescript-eslint/require-await': 'off',
      // A leading underscore marks a name kept on purpose, and rest destructuring is how rows drop fields.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // A list bound one variable per value fails past SQLite's limit ("too many SQL variables", a 500):
    // `inList` and `insertRows` in src/store/sql-lists.ts bind lists of any length. Importing drizzle's
    // `inArray` anywhere else fails the lint, e.g. `import { inArray } from 'drizzle-orm'` in a repo.
    files: ['src/**/*.ts'],
    ignores: ['src/store/sql-lists.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='drizzle-orm'] ImportSpecifier[imported.name='inArray']",
          message: 'Use inList from src/store/sql-lists.ts: it binds lists of any length.',
        },
      ],
    },
  },
  // Boundaries. The two API trees share only core/, store/ and the server: `platform/` importing
  // `secrets/` (e.g. `import { TokenStore } from '../../secrets/tokens/token-store.js'` in a
  // platform service) or the reverse fails the lint. Route files reach the store through services
  // only: a value import of a repo or of the tables in one (e.g. `import { listRunTasks } from
  // './repo.js'` in run-tasks/routes.ts) fails too; types may still be named.
  {
    files: ['src/platform/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [PLATFORM_ONLY] }] },
  },
  {
    files: ['src/secrets/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [SECRETS_ONLY] }] },
  },
  {
    files: ['src/platform/**/routes.ts', 'src/platform/**/*-routes.ts', 'src/platform/workspaces/actions.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [PLATFORM_ONLY, ROUTES_USE_SERVICES] }] },
  },
  {
    files: ['src/control/**/*.ts'],
    ignores: ['src/control/harness/**'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [READERS_ONLY, NO_TABLES, NOT_THE_APP] }] },
  },
  {
    files: ['src/control/harness/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [VIEWS_READ_ONLY, NOT_THE_APP] }] },
  },
  {
    files: ['src/seed/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [READERS_ONLY, NO_TABLES, BELOW_THE_APP] }] },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests read JSON response bodies (typed `any`, each with its reason at the helper) and assert on their fields;
      // typing every body would add nothing the assertions do not already check.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
