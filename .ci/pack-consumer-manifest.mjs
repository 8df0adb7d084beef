// Writes the pack-test consumer's package.json: each tarball as a `file:`
// dependency, the same tarballs as overrides (so a package's dependency on
// another of ours resolves to the tarball, never to the registry), and the peer
// dependencies and type packages a user would install.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const tarballDir = process.argv[2];
const ours = {};
for (const file of readdirSync(tarballDir).filter((name) => name.endsWith('.tgz'))) {
  // pnpm names them svc-webhooks-core-0.1.0.tgz for @svc/webhooks-core@0.1.0.
  const match = /^svc-(webhooks-[a-z]+)-\d/.exec(file);
  if (!match) throw new Error(`unexpected tarball name ${file}`);
  ours[`@svc/${match[1]}`] = `file:${join(tarballDir, file)}`;
}

const manifest = {
  name: 'svc-webhooks-pack-consumer',
  private: true,
  type: 'module',
  dependencies: {
    ...ours,
    '@opentelemetry/api': '^1.9.0',
    express: '^5.1.0',
    ioredis: '^5.6.0',
    pg: '^8.16.0',
  },
  devDependencies: {
    '@types/express': '^5.0.0',
    '@types/node': '^20.19.0',
    '@types/pg': '^8.15.0',
  },
  overrides: ours,
};
console.log(JSON.stringify(manifest, null, 2));
