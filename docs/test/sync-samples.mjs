// Copies each docs/examples file into the code block that follows its
// `<!-- sample: examples/x.ts -->` marker in the guides (`pnpm docs:samples`).
// markdown-samples.test.ts fails when a guide and a sample differ.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

const docs = new URL('../', import.meta.url);
const MARKER = /^<!-- sample: (\S+) -->\n```(\S*)\n[\s\S]*?^```$/gm;

for (const name of readdirSync(docs).filter((file) => file.endsWith('.md'))) {
  const path = new URL(name, docs);
  const before = readFileSync(path, 'utf8');
  const after = before.replace(MARKER, (_block, sample, language) => {
    const code = readFileSync(new URL(sample, docs), 'utf8').replace(/\n$/, '');
    return `<!-- sample: ${sample} -->\n\`\`\`${language}\n${code}\n\`\`\``;
  });
  if (after !== before) {
    writeFileSync(path, after);
    console.log(`updated docs/${name}`);
  }
}
