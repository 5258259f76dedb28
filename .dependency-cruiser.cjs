/**
 * Imports point downward: src/app.ts → routers → domain → stores → db/, platform/, crypto/, config/
 * (docs/architecture.md). Run by `npm run depcheck`, in CI and in test/build/.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A module must not reach itself at run time (type-only imports between an interface and its adapters are allowed).',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment: 'Folders form no cycle, type imports included: a folder that needs another is above it.',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'foundations-import-no-feature',
      severity: 'error',
      comment:
        'platform/, db/, crypto/ and config/ are the bottom layer: they import each other, errors.ts, log.ts and zod.ts only.',
      from: { path: '^src/(platform|db|crypto|config)/' },
      to: { path: '^src/', pathNot: '^src/((platform|db|crypto|config)/|(errors|log|zod)\\.ts$)' },
    },
    {
      name: 'platform-imports-nothing-above',
      severity: 'error',
      comment: 'Every runtime difference lives in platform/, which depends on nothing else in src/.',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/platform/' },
    },
    {
      name: 'composition-root-on-top',
      severity: 'error',
      comment: 'Only the entry point, the server and the CLI import the composition root and the server.',
      from: { path: '^src/', pathNot: '^src/(cli/|main\\.ts$|server\\.ts$|bootstrap\\.ts$)' },
      to: { path: '^src/(app|server|bootstrap)\\.ts$' },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
  },
};
