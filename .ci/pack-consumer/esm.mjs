// ESM consumer of the packed tarballs: every public entry point loads through
// `import`, and the main paths work end to end without a network.
import assert from 'node:assert/strict';
import * as core from '@svc/webhooks-core';
import * as adapterKit from '@svc/webhooks-core/adapter-kit';
import * as otel from '@svc/webhooks-core/otel';
import * as schemas from '@svc/webhooks-core/schemas';
import * as router from '@svc/webhooks-express';
import * as routerPortal from '@svc/webhooks-express/portal';
import * as pg from '@svc/webhooks-pg';
import * as portalAssets from '@svc/webhooks-portal/assets';
import * as redis from '@svc/webhooks-redis';
import * as verify from '@svc/webhooks-verify';
import * as verifyExpress from '@svc/webhooks-verify/express';
import * as verifyFetch from '@svc/webhooks-verify/fetch';
import * as verifyWeb from '@svc/webhooks-verify/web';
import express from 'express';
import { exerciseEntries } from './exercise.mjs';

await exerciseEntries(
  {
    core,
    otel,
    schemas,
    adapterKit,
    router,
    routerPortal,
    portalAssets,
    pg,
    redis,
    verify,
    verifyExpress,
    verifyFetch,
    verifyWeb,
    express,
  },
  assert,
);
console.log('esm consumer: ok');
