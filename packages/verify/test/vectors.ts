import { readFileSync } from 'node:fs';

/** One case of test-vectors.json. */
export interface TestVector {
  name: string;
  secret: string | string[];
  body: string;
  header: string | null;
  now: number;
  toleranceMs: number;
  expected: { valid: boolean; code?: string };
}

/** Path of the committed vectors file, shared with the Python snippet test. */
export const vectorsPath = new URL('../test-vectors.json', import.meta.url);

/** The committed vectors. */
export const vectors: TestVector[] = JSON.parse(readFileSync(vectorsPath, 'utf8')).cases;
