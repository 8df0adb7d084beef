import { spawnReceiverProcess } from '@svc/test-support';
import { drainWithPgBoss, type PgBossMode } from './pgboss-throughput';
const receiver = await spawnReceiverProcess();
const count = Number(process.argv[2] ?? 10000);
try {
  for (const mode of ['work', 'fetch-loop'] as PgBossMode[]) for (const loops of [1, 2, 4, 8]) {
    const r = await drainWithPgBoss(receiver, count, 64, loops, mode);
    console.log(mode, loops, Math.round(r.perSecond));
  }
} finally { await receiver.close(); }
