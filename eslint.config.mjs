// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.amsflow/',
      'test-artifacts/',
      'coverage/',
      '**/*.js',
      '**/*.mjs',
      // The web chat's browser modules are linted (with types from simulator/web/tsconfig.json).
      '!simulator/web/**/*.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
    },
  },
  {
    // Workflow code is replayed: no Node built-ins, no side-effecting imports, and only type
    // imports of modules that touch the outside world. The protocol module is imported by
    // workflow code, so it obeys the same rules.
    files: ['workflows/**/*.ts', 'protocol/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({
            name,
            message: 'Workflow code must not use Node built-ins.',
          })),
          patterns: [
            {
              group: [
                '**/activities',
                '**/activities/*',
                '**/messaging',
                '**/messaging/*',
                '**/worker/*',
                '**/client/*',
                '**/simulator/*',
                'undici',
                '@temporalio/client',
                '@temporalio/worker',
                '@temporalio/activity',
              ],
              allowTypeImports: true,
              message: 'Workflow code may import these by type only.',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportDeclaration[specifiers.length=0][importKind!="type"]',
          message: 'Side-effecting imports are not allowed in workflow code.',
        },
      ],
    },
  },
  // ---- Size (issue 20, point 5) ----------------------------------------------------------------
  // Every non-test source file at most 300 lines, every function at most 60 (blank lines and
  // comments not counted: a why-comment never pushes code over). The web chat's modules and
  // scripts/ are source like any other; test/, bench/ and chaos/ (measurement harnesses) and the
  // examples' tests are not. A file or function that must stay longer says why where it starts:
  // `/* eslint-disable max-lines -- <reason> */` in its header, or
  // `// eslint-disable-next-line max-lines-per-function -- <reason>` above the function.
  {
    files: ['**/*.ts', 'simulator/web/**/*.js'],
    ignores: ['test/**', 'bench/**', 'chaos/**', '**/*.test.ts'],
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  // ---- end of size ----------------------------------------------------------------------------
  {
    // The web chat: native ES modules in the browser, plain JavaScript with JSDoc types. Its
    // browser globals are listed by hand (no dependency on the `globals` package, and `no-undef`
    // stays strict); add one here when the page starts using another.
    files: ['simulator/web/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'console',
          'fetch',
          'setTimeout',
          'clearTimeout',
          'URL',
          'URLSearchParams',
          'EventSource',
          'ResizeObserver',
          'CSS',
          'Element',
          'HTMLElement',
          'HTMLButtonElement',
          'HTMLFormElement',
          'HTMLInputElement',
          'HTMLTextAreaElement',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  prettier,
);
