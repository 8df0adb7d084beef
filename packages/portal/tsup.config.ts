import { defineConfig } from 'tsup';

/*
 * Three builds: the element for bundlers (ESM, Lit left to the app's bundler so it is shared),
 * the standalone script a page loads with one <script type="module"> (Lit inlined, minified),
 * and the Node entry that tells a server where that script is.
 */
export default defineConfig([
  {
    entry: ['src/index.ts'],
    format: ['esm'],
    platform: 'browser',
    target: 'es2022',
    dts: true,
    sourcemap: true,
    splitting: false,
    treeshake: true,
  },
  {
    entry: ['src/standalone.ts'],
    format: ['esm'],
    platform: 'browser',
    target: 'es2022',
    dts: true,
    noExternal: [/.*/],
    minify: true,
    sourcemap: true,
    splitting: false,
    treeshake: true,
  },
  {
    entry: ['src/assets.ts'],
    format: ['esm', 'cjs'],
    platform: 'node',
    target: 'node20',
    dts: true,
    shims: true,
    sourcemap: true,
    splitting: false,
  },
]);
