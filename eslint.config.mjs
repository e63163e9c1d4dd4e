// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/**
 * An import that climbs out of the importing file's folder into one of `folders` (top-level
 * folders of this repository, or the root `index`; no nested folder shares a top-level folder's
 * name, and within workflows/ `../index` is the author barrel, which no room may import either).
 * @param {string[]} folders
 */
const into = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;

/** Top-level folders holding code, and `index` (the root entry, `amsflow`: it reaches everything). */
const ALL = [
  'index',
  'core',
  'messaging',
  'protocol',
  'activities',
  'workflows',
  'worker',
  'client',
  'testing',
  'simulator',
  'examples',
  'codec',
  'tools',
  'scripts',
  'bench',
  'chaos',
  'test',
];
/** @param {string[]} allowed */
const allBut = (allowed) => ALL.filter((f) => !allowed.includes(f));

/**
 * @typedef {{ regex: string, message: string, typesOk?: boolean }} Fence
 * @param {Fence[]} fences
 * @param {boolean} [workflowCode] replayed code: no Node built-ins either (and see below)
 */
function restricted(fences, workflowCode = false) {
  return [
    'error',
    {
      paths: workflowCode
        ? nodeBuiltins.map((name) => ({ name, message: 'Workflow code must not use Node built-ins.' }))
        : [],
      patterns: [
        ...fences.map(({ regex, message, typesOk }) => ({
          regex,
          caseSensitive: true,
          message,
          ...(typesOk ? { allowTypeImports: true } : {}),
        })),
        ...(workflowCode
          ? [
              {
                group: ['undici', '@temporalio/client', '@temporalio/worker', '@temporalio/activity'],
                allowTypeImports: true,
                message: 'Workflow code may import these by type only.',
              },
              {
                // The AI SDK needs what the workflow sandbox lacks (web streams, fetch): model calls
                // are activities (activities/model-calls.ts).
                group: ['ai', 'ai/*', '@ai-sdk/*'],
                allowTypeImports: true,
                message: 'Workflow code may import the AI SDK by type only: a model call is an activity.',
              },
            ]
          : []),
      ],
    },
  ];
}

/** The rooms of workflows/ (workflows/README.md): who may import whom. */
const ROOMS = {
  author: { may: [], why: 'the author API imports no other room (the rooms build on it)' },
  engine: { may: ['author'], why: "the engine uses the author API's shared parts, no use-case workflow" },
  approvals: { may: ['author'], why: 'a use-case workflow builds on the author API only' },
  reminders: { may: ['author'], why: 'a use-case workflow builds on the author API only' },
  media: { may: ['author'], why: 'a use-case workflow builds on the author API only' },
  models: {
    may: ['author', 'approvals', 'reminders'],
    why: 'model turns build on the author API, and offer approvals and reminders as tools',
  },
};

/** Fences of workflows/ (every room shares them). */
const WORKFLOW_FENCES = [
  {
    regex: into(allBut(['core', 'protocol', 'activities', 'messaging'])),
    message: 'workflows/ may import core/, protocol/ and (types only) activities/ and messaging/.',
  },
  {
    regex: into(['activities', 'messaging']),
    typesOk: true,
    message: 'Workflow code may import activities/ and messaging/ by type only.',
  },
];

/** The "may import" table as lint rules, one block per folder. */
function fenceConfigs() {
  /** @param {string[]} files @param {Fence[]} fences @param {boolean} [workflowCode] */
  const block = (files, fences, workflowCode = false) => ({
    files,
    rules: {
      '@typescript-eslint/no-restricted-imports': restricted(fences, workflowCode),
      ...(workflowCode
        ? {
            'no-restricted-syntax': [
              'error',
              {
                selector: 'ImportDeclaration[specifiers.length=0][importKind!="type"]',
                message: 'Side-effecting imports are not allowed in workflow code.',
              },
            ],
          }
        : {}),
    },
  });
  const publicApi =
    'examples/ use the public API only: amsflow, amsflow/workflows, amsflow/engine-workflows, amsflow/testing (or ../../index, ../../workflows, ../../workflows/engine-workflows, ../../testing).';
  return [
    // core/ is loaded by workflow code too: nothing of ours, no Node built-ins.
    block(['core/**/*.ts'], [{ regex: '^\\.\\./', message: 'core/ imports nothing of ours.' }], true),
    block(
      ['messaging/**/*.ts'],
      [{ regex: into(allBut(['core'])), message: 'messaging/ may import core/ only.' }],
    ),
    // protocol/ is loaded by workflow code: it obeys the workflow rules too.
    block(
      ['protocol/**/*.ts'],
      [
        {
          regex: into(allBut(['core', 'messaging'])),
          message:
            'protocol/ may import core/ and (types only) messaging/: nothing of the engine or workflows/.',
        },
        {
          regex: into(['messaging']),
          typesOk: true,
          message: 'protocol/ may import messaging/ by type only.',
        },
      ],
      true,
    ),
    block(
      ['activities/**/*.ts'],
      [
        {
          regex: into(allBut(['core', 'messaging', 'protocol'])),
          message: 'activities/ may import core/, messaging/ and protocol/.',
        },
      ],
    ),
    block(['workflows/*.ts'], WORKFLOW_FENCES, true),
    ...Object.entries(ROOMS).map(([room, { may, why }]) =>
      block(
        [`workflows/${room}/**/*.ts`],
        [
          ...WORKFLOW_FENCES,
          {
            regex: `^\\.\\./(${Object.keys(ROOMS)
              .filter((r) => r !== room && !may.includes(r))
              .join('|')})(/|$)`,
            message: `workflows/${room}/: ${why}.`,
          },
        ],
        true,
      ),
    ),
    // The dev mode embeds the simulator (AMSFLOW_SIMULATOR): the one import beyond the table.
    block(
      ['worker/**/*.ts'],
      [
        {
          regex: into(
            allBut([
              'core',
              'messaging',
              'protocol',
              'activities',
              'workflows',
              'codec',
              'tools',
              'simulator',
            ]),
          ),
          message:
            'worker/ may import core/, messaging/, protocol/, activities/, workflows/, codec/, tools/ and simulator/.',
        },
      ],
    ),
    block(
      ['client/**/*.ts'],
      [
        {
          regex: into(allBut(['core', 'protocol', 'messaging', 'codec', 'tools'])),
          message:
            'client/ may import core/, protocol/, codec/, tools/ and messaging/ (types, and its pure rules limits and validation).',
        },
        {
          regex: '^(\\.\\./)+messaging(/(?!(limits|validation)$)|$)',
          typesOk: true,
          message:
            'client/ may import messaging/ by type only, but for limits and validation (pure rules, no HTTP).',
        },
      ],
    ),
    block(
      ['testing/**/*.ts'],
      [
        {
          regex: into(['examples', 'scripts', 'bench', 'chaos', 'test']),
          message: 'testing/ may import worker/, client/, simulator/ and what they may.',
        },
      ],
    ),
    block(
      ['simulator/**/*.ts'],
      [{ regex: into(allBut(['core'])), message: 'simulator/ may import core/ only.' }],
    ),
    block(['codec/**/*.ts'], [{ regex: into(allBut(['core'])), message: 'codec/ may import core/ only.' }]),
    block(['tools/**/*.ts'], [{ regex: '^\\.\\./', message: 'tools/ imports nothing of ours.' }]),
    block(
      ['examples/**/*.ts'],
      [
        {
          regex:
            '^\\.\\./(?!\\.\\./(index|workflows|workflows/index|workflows/engine-workflows|testing|testing/index)$)',
          message: publicApi,
        },
        { regex: '^amsflow/(?!(workflows|engine-workflows|testing)$)', message: publicApi },
      ],
    ),
  ];
}

// ---- Workflow versions (owned by the engine; keep this block whole) -------------------------
// Temporal's `patched`/`deprecatePatch` are called in one module only, the engine's versions
// module, which lists every patch id in use with its dates (docs/OPERATIONS.md, "Changing the
// engine's workflow code"). Any other file importing them, by name or through a namespace
// import, fails lint.
const PATCH_FUNCTIONS = new Set(['patched', 'deprecatePatch']);
const VERSIONS_MODULES = ['workflows/engine/versions.ts'];
const patchesInVersions = {
  meta: {
    type: 'problem',
    messages: {
      patch:
        '`{{name}}` is called only in the versions module (workflows/engine/versions.ts): list the id there and use isPatched/patchDeprecated.',
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
  // The fences: what each top-level folder may import (docs/ARCHITECTURE.md, "Layout").
  // test/lint/fences.test.ts plants a violation in each folder and expects these to report it.
  ...fenceConfigs(),
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
