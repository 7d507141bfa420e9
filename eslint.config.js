import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'state/', 'out/', 'coverage/', 'bench/.exp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
      eqeqeq: ['error', 'always'],
    },
  },
  // One door to the state: only src/state/ speaks SQL. Elsewhere in src/ no database driver and
  // no module of a store's own folder (src/state/sqlite/, src/state/postgres/) is imported; the sandbox's journal lock
  // (a file lock of its own, not the state) is the one exception.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/state/**', 'src/sandbox/journal/journal-lock.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'better-sqlite3', message: 'only src/state/ speaks to the database: go through the Store (src/state/store.ts)' },
          { name: 'pg', message: 'only src/state/ speaks to the database: go through the Store (src/state/store.ts)' },
        ],
        patterns: [{ group: ['**/state/sqlite/*', '**/state/postgres/*', '**/state/lock/*'], message: "import the state from src/state/index.js: each store's folder is its own" }],
      }],
    },
  },
  {
    files: ['bench/**', 'bin/**', 'test/**/fixtures/**'],
    rules: { 'no-console': 'off' },
  },
);
