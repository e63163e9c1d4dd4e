// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// ---- Workflow versions (owned by the engine; keep this block whole) -------------------------
// Temporal's `patched`/`deprecatePatch` are called in one module only, the engine's versions
// module, which lists every patch id in use with its dates (docs/OPERATIONS.md, "Changing the
// engine's workflow code"). Any other file importing them, by name or through a namespace
// import, fails lint.
const PATCH_FUNCTIONS = new Set(['patched', 'deprecatePatch']);
const VERSIONS_MODULES = ['workflows/agent/versions.ts', 'workflows/engine/versions.ts'];
const patchesInVersions = {
  meta: {
    type: 'problem',
    messages: {
      patch:
        '`{{name}}` is called only in the versions module (workflows/agent/versions.ts): list the id there and use isPatched/patchDeprecated.',
    },
    schema: [],
  },
  create(context) {
    const namespaces = new Set();
    return {
      ImportDeclaration(node) {
        if (node.source.value !== '@temporalio/workflow') return;
        for (const spec of node.specifiers) {
          if (spec.type === 'ImportNamespaceSpecifier') namespaces.add(spec.local.name);
          const name =
            spec.type === 'ImportSpecifier' ? (spec.imported.name ?? spec.imported.value) : undefined;
          if (name && PATCH_FUNCTIONS.has(name))
            context.report({ node: spec, messageId: 'patch', data: { name } });
        }
      },
      MemberExpression(node) {
        const name = node.property.type === 'Identifier' ? node.property.name : node.property.value;
        if (
          node.object.type === 'Identifier' &&
          namespaces.has(node.object.name) &&
          PATCH_FUNCTIONS.has(name)
        )
          context.report({ node, messageId: 'patch', data: { name } });
      },
    };
  },
};
const workflowVersionsRules = {
  files: ['**/*.ts'],
  ignores: VERSIONS_MODULES,
  plugins: { amsflow: { rules: { 'patches-in-versions': patchesInVersions } } },
  rules: { 'amsflow/patches-in-versions': 'error' },
};
// ---- end of workflow versions ---------------------------------------------------------------

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
  workflowVersionsRules,
  prettier,
);
