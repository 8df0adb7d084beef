import { defineConfig } from 'tsup';
import { baseTsupOptions } from '../../tsup.base';

export default defineConfig({
  ...baseTsupOptions,
  entry: ['src/index.ts', 'src/bin.ts'],
  // The bin is run, never imported: only the programmatic entry has declarations.
  dts: { entry: 'src/index.ts' },
});
