import type { Options } from 'tsup';

/**
 * Build settings every published package shares: ESM + CJS + declarations,
 * no minification (stack traces stay readable), Node 20 syntax.
 */
export const baseTsupOptions = {
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  splitting: false,
  treeshake: true,
} satisfies Options;
