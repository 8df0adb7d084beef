import { defineConfig } from 'tsup';
import { baseTsupOptions } from '../../tsup.base';

export default defineConfig({
  ...baseTsupOptions,
  entry: ['src/index.ts', 'src/testing.ts', 'src/otel.ts', 'src/schemas.ts', 'src/adapter-kit.ts'],
});
