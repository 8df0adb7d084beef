/**
 * The dependency rules CI checks (`pnpm check:deps`): no import cycles, core's
 * layers only ever import downwards, and the packages keep their promises to
 * each other (see docs/architecture.md, "Layers").
 */

/** core/src's folders, lowest first. A folder imports only folders of earlier groups (and root leaves). */
const CORE_LAYERS = [
  ['config', 'events'],
  ['delivery'],
  ['adapters', 'transport', 'observability'],
  ['memory'],
  ['service'],
  ['worker'],
  ['testing'],
];
/** core/src's root files that are leaves: imported by the folders, importing none of them. */
const CORE_LEAVES = ['errors', 'ids', 'validation', 'deadline', 'bounded-map', 'sorted-array'];
const CORE = '^packages/core/src/';

const layerRules = CORE_LAYERS.flatMap((group, rank) => {
  const higher = CORE_LAYERS.slice(rank + 1).flat();
  return group.map((folder) => {
    const siblings = group.filter((other) => other !== folder);
    const forbidden = [...higher, ...siblings];
    return {
      name: `core-layer-${folder}`,
      comment: `core/src/${folder} may import only the layers below it: ${CORE_LAYERS.slice(0, rank).flat().join(', ') || 'root leaves'}.`,
      severity: 'error',
      from: { path: `${CORE}${folder}/` },
      to: { path: `${CORE}(${forbidden.join('|')})/` },
    };
  });
}).filter((rule) => !rule.to.path.endsWith('()/'));

/**
 * A package of ours as an import can reach it: resolved into the workspace or node_modules, or, where the importing
 * package does not depend on it, unresolved under its bare name.
 */
const ours = (name) => `(^packages/${name}/|node_modules/@svc/webhooks-${name}/|^@svc/webhooks-${name}(/|$))`;
/** Database drivers and HTTP frameworks, resolved or by bare name. */
const DRIVERS = ['pg', 'pg-[a-z-]+', 'ioredis', 'redis', 'bullmq', 'express', 'fastify', 'koa', 'hono'];
const driver = (names) => `(node_modules/(${names.join('|')})/|^(${names.join('|')})(/|$))`;

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle makes the layers meaningless and the load order fragile.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'core-leaves-import-no-folder',
      comment: `core's root leaves (${CORE_LEAVES.join(', ')}) are imported by the folders and import none of them.`,
      severity: 'error',
      from: { path: `${CORE}(${CORE_LEAVES.join('|')})\\.ts$` },
      to: { path: `${CORE}[^/]+/` },
    },
    {
      name: 'core-folders-import-no-entry',
      comment:
        "core's entries (index, schemas, adapter-kit, testing, otel) sit on top; nothing inside core imports them.",
      severity: 'error',
      from: { path: `${CORE}[^/]+/` },
      to: { path: `${CORE}(index|schemas|adapter-kit|testing|otel)\\.ts$` },
    },
    {
      name: 'verify-imports-nothing-of-ours',
      comment: 'Receivers install @svc/webhooks-verify alone: it depends on no other package of ours.',
      severity: 'error',
      from: { path: '^packages/verify/src/' },
      to: { path: `(${['core', 'pg', 'redis', 'express'].map(ours).join('|')}|^internal/)` },
    },
    {
      name: 'core-knows-no-database-or-http-framework',
      comment: 'Databases live in the adapters, HTTP frameworks in @svc/webhooks-express.',
      severity: 'error',
      from: { path: '^packages/core/src/' },
      to: {
        path: `(${driver(DRIVERS)}|${['pg', 'redis', 'express'].map(ours).join('|')})`,
      },
    },
    {
      name: 'adapters-are-independent',
      comment: 'The PostgreSQL and Redis adapters know only core: a host installs one without the other.',
      severity: 'error',
      from: { path: '^packages/(pg|redis)/src/' },
      to: { path: `(${['pg', 'redis', 'express'].map(ours).join('|')})`, pathNot: '^packages/$1/' },
    },
    {
      name: 'express-works-with-any-store',
      comment: 'The router talks to the service only, never to a particular store or queue.',
      severity: 'error',
      from: { path: '^packages/express/src/' },
      to: { path: `(${['pg', 'redis'].map(ours).join('|')}|${driver(['pg', 'ioredis', 'redis'])})` },
    },
    {
      name: 'sources-import-no-tests',
      comment: 'Published code never reaches into tests or the internal test support package.',
      severity: 'error',
      from: { path: '^packages/[^/]+/src/' },
      to: { path: '(^packages/[^/]+/test/|^internal/|node_modules/@svc/test-support/|^@svc/test-support$)' },
    },
  ],
  options: {
    // Other packages are seen as their resolved entry (node_modules or their dist) but not followed into.
    doNotFollow: { path: ['node_modules', '(^|/)dist/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts', '.json'],
    },
  },
};
