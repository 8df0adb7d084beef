import { defineConfig, type Options } from 'tsup';

/*
 * Three builds: the element for bundlers (ESM, Lit left to the app's bundler so it is shared),
 * the standalone script a page loads with one <script type="module"> (Lit inlined, minified),
 * and the Node entry that tells a server where that script is.
 */
const standalone: Options = {
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
};

/*
 * `PORTAL_BUILD=script` builds the standalone script alone, without declarations: what a server
 * serving the page needs, in about a second instead of the full build's declarations (the demo
 * runs the workspace from its sources and needs nothing else built).
 */
export default defineConfig(
  process.env.PORTAL_BUILD === 'script'
    ? [{ ...standalone, dts: false }]
    : [
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
        standalone,
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
      ],
);
