// CJS consumer of the packed tarballs: every public entry point loads through
// `require` (the `require` condition of each exports map).
const assert = require('node:assert/strict');

const entries = {
  core: require('@svc/webhooks-core'),
  otel: require('@svc/webhooks-core/otel'),
  schemas: require('@svc/webhooks-core/schemas'),
  adapterKit: require('@svc/webhooks-core/adapter-kit'),
  router: require('@svc/webhooks-express'),
  routerPortal: require('@svc/webhooks-express/portal'),
  portalAssets: require('@svc/webhooks-portal/assets'),
  pg: require('@svc/webhooks-pg'),
  redis: require('@svc/webhooks-redis'),
  verify: require('@svc/webhooks-verify'),
  verifyExpress: require('@svc/webhooks-verify/express'),
  verifyFetch: require('@svc/webhooks-verify/fetch'),
  verifyWeb: require('@svc/webhooks-verify/web'),
  express: require('express'),
};

for (const [name, path] of Object.entries({
  core: '@svc/webhooks-core',
  verify: '@svc/webhooks-verify',
  verifyWeb: '@svc/webhooks-verify/web',
})) {
  // Resolving to the .cjs build proves the `require` condition was used.
  assert.match(require.resolve(path), /\.cjs$/, `${name} resolved to ${require.resolve(path)}`);
}

import('./exercise.mjs')
  .then(({ exerciseEntries }) => exerciseEntries(entries, assert))
  .then(() => console.log('cjs consumer: ok'))
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
