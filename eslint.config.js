// @ts-check
// Lint configuration: `npm run lint` (part of `npm test`). Layout is Prettier's job (`npm run format`);
// this file holds the rules that catch mistakes, and the one layout rule Prettier cannot enforce: line length,
// which also covers the comments and strings Prettier never wraps.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
