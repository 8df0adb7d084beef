import { spawnReceiverProcess } from '@svc/test-support';
import { drainWithSvc } from './svc-throughput';
const receiver = await spawnReceiverProcess();
try { console.log(JSON.stringify(await drainWithSvc(receiver, Number(process.argv[2] ?? 10000), Number(process.argv[3] ?? 64)))); } finally { await receiver.close(); }
