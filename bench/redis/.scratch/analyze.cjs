const fs = require('fs');
const file = process.argv[2];
const prof = JSON.parse(fs.readFileSync(file));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = prof.timeDeltas;
const samples = prof.samples;
const counts = new Map();
for (let i = 0; i < samples.length; i++) counts.set(samples[i], (counts.get(samples[i]) ?? 0) + (dt[i] ?? 0));
const byFile = new Map(),
  byFn = new Map();
let total = 0;
for (const [id, t] of counts) {
  const n = byId.get(id);
  total += t;
  const url = n.callFrame.url
    .replace(/.*node_modules\/\.pnpm\/([^/]+)\/.*/, '$1')
    .replace(/.*\/work\/main\//, '');
  byFile.set(url, (byFile.get(url) ?? 0) + t);
  const fn = `${n.callFrame.functionName || '(anon)'} ${url}:${n.callFrame.lineNumber}`;
  byFn.set(fn, (byFn.get(fn) ?? 0) + t);
}
const top = (m, k) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([n, t]) => `${((t / total) * 100).toFixed(1)}%  ${n}`)
    .join('\n');
console.log('total ms', (total / 1000).toFixed(0));
console.log(top(byFile, 25));
console.log('---');
console.log(top(byFn, 30));
