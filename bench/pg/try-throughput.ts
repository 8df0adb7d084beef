import { spawnReceiverProcess } from '@svc/test-support';
import { drainWithPgBoss } from './pgboss-throughput';
import { drainWithSvc } from './svc-throughput';

const receiver = await spawnReceiverProcess();
const count = Number(process.argv[2] ?? 10000);
const concurrency = Number(process.argv[3] ?? 64);
try {
  console.log('svc', await drainWithSvc(receiver, count, concurrency));
  for (const loops of [1, 2, 4, 8]) {
    console.log('pgboss loops', loops, await drainWithPgBoss(receiver, count, concurrency, loops));
  }
} finally {
  await receiver.close();
}
