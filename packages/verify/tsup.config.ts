import { defineConfig } from 'tsup';
import { baseTsupOptions } from '../../tsup.base';

export default defineConfig({
  ...baseTsupOptions,
  entry: ['src/index.ts', 'src/web.ts', 'src/express.ts', 'src/fetch.ts'],
});
