// Lint: ESLint's and typescript-eslint's recommended rules, with the exceptions argued below.
// Formatting is Prettier's (npm run format); `npm run lint` checks both, and CI runs it first.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'data/**',
      'coverage/**',
      'src/db/generated/**',
      'src/web/gql/**',
      'test/typed-client/generated/**',
      'test/artifacts/**',
      'bench/results/**',
      'bench/data-*/**',
      'bench/.baseline/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly' } },
    rules: {
      // TypeScript checks names (strict); ESLint's own check does not know types, DOM or Node globals.
      'no-undef': 'off',
      // Unused names are errors, except the ones a signature needs (`_args`) and rest siblings.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests and scripts read JSON bodies of many shapes; typing each would be noise.
    files: ['test/**', 'scripts/**', 'src/**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
