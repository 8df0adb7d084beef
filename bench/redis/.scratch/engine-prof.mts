import { Redis } from 'ioredis';
import { setUpBench } from '../bench-setup';
import { measureEngineThroughput } from '../engine-run';

const setup = await setUpBench();
const n = Number(process.env.N ?? 5000);
await measureEngineThroughput(setup, 'w', 1000, 64);
const admin = new Redis();
await admin.config('RESETSTAT');
const e = await measureEngineThroughput(setup, `e`, n, 64);
console.log(`engine ${e.toFixed(0)}/s`);
const stats = await admin.info('commandstats');
console.log(
  stats
    .split('\n')
    .filter((l) => /calls=/.test(l))
    .map((l) => {
      const m = /cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/.exec(l)!;
      return `${m[1]} calls/delivery=${(Number(m[2]) / n).toFixed(2)} usec/delivery=${(Number(m[3]) / n).toFixed(1)}`;
    })
    .join('\n'),
);
await admin.quit();
await setup.close();
