import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Tests run against the TypeScript sources of the workspace packages (no build
 * needed): `@svc/webhooks-<pkg>` maps to `packages/<pkg>/src/index.ts` and a
 * subpath `@svc/webhooks-<pkg>/<entry>` to `packages/<pkg>/src/<entry>.ts`,
 * which is exactly how each package's tsup entries are laid out.
 */
const alias = [
  { find: /^@svc\/webhooks-([a-z]+)$/, replacement: `${root}packages/$1/src/index.ts` },
  { find: /^@svc\/webhooks-([a-z]+)\/([a-z-]+)$/, replacement: `${root}packages/$1/src/$2.ts` },
  { find: /^@svc\/test-support$/, replacement: `${root}internal/test-support/src/index.ts` },
  { find: /^@svc\/test-support\/([a-z-]+)$/, replacement: `${root}internal/test-support/src/$1.ts` },
];

const packages = ['verify', 'core', 'pg', 'redis', 'express'];

/**
 * The pg files that read query plans: whether PostgreSQL answers from an index alone depends on
 * the visibility map, which VACUUM cannot set while another file's transaction holds an older
 * snapshot. They run as their own project, after every other file, one at a time.
 */
const planFiles = ['list-filters', 'recovery-list', 'recovery-retention'].map(
  (name) => `packages/pg/test/${name}.pg.test.ts`,
);

export default defineConfig({
  resolve: { alias },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Vitest's default (one core less than the machine has) runs files one at a time on two
    // cores, yet most files spend their time waiting on sockets, databases, child processes
    // and the browser rather than computing; two at a time overlap those waits.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true as const,
        test: { name: 'pg-plans', include: planFiles, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
      ...packages.map((name) => ({
        extends: true as const,
        test: {
          name,
          include: [`packages/${name}/{src,test}/**/*.test.ts`],
          exclude: name === 'pg' ? planFiles : [],
          // The express package serves the portal's built script (createWebhooksPortal).
          ...(name === 'express' ? { globalSetup: ['packages/portal/test/global-setup.ts'] } : {}),
        },
      })),
      {
        extends: true as const,
        // The CLI's tests run its built binary; the setup rebuilds it when a source is newer.
        test: {
          name: 'cli',
          include: ['packages/cli/{src,test}/**/*.test.ts'],
          globalSetup: ['packages/cli/test/global-setup.ts'],
        },
      },
      {
        extends: true as const,
        // The portal's tests drive its built script in Chromium; the setup rebuilds it when a source is newer.
        test: {
          name: 'portal',
          include: ['packages/portal/{src,test}/**/*.test.ts'],
          globalSetup: ['packages/portal/test/global-setup.ts'],
          testTimeout: 60_000,
        },
      },
      {
        extends: true as const,
        // The guides' code samples (docs/examples) run here, and the guides must show them verbatim.
        test: {
          name: 'docs',
          include: ['docs/test/**/*.test.ts'],
          // The portal sample serves the portal's built script.
          globalSetup: ['packages/portal/test/global-setup.ts'],
        },
      },
      {
        extends: true as const,
        test: {
          name: 'examples',
          include: ['examples/*/test/**/*.test.ts', 'internal/*/test/**/*.test.ts'],
        },
      },
    ],
  },
});
