import { Redis } from 'ioredis';
import { setUpBench } from '../bench-setup';
import { measureBullmqThroughput } from '../bullmq-run';
import { measureEngineThroughput } from '../engine-run';
const setup = await setUpBench();
const piped = new Redis({ enableAutoPipelining: true });
const n = Number(process.env.N ?? 5000);
await measureEngineThroughput(setup, 'w', 1000, 64);
await measureEngineThroughput(setup, 'wp', 1000, 64, piped);
await measureBullmqThroughput(setup, 'wb', 1000, 64);
for (let r = 0; r < Number(process.env.R ?? 3); r++) {
  const b = await measureBullmqThroughput(setup, `b${r}`, n, 64);
  const e = await measureEngineThroughput(setup, `e${r}`, n, 64);
  const p = await measureEngineThroughput(setup, `p${r}`, n, 64, piped);
  console.log(`bullmq ${b.toFixed(0)}/s engine ${e.toFixed(0)}/s (${(e / b).toFixed(2)}) autopipelined ${p.toFixed(0)}/s (${(p / b).toFixed(2)})`);
}
await piped.quit();
await setup.close();
