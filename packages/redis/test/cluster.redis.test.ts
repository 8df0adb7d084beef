import { describeClusterConformance } from './cluster-conformance';
import { describeClusterFailover } from './cluster-failover';
import { describeClusterSlots } from './cluster-slots';

// Every test on the Redis Cluster, in one file so they run one after another: the failover test
// kills a master, which must not happen under another file's tests. It runs last and leaves the
// cluster healthy again (the killed node rejoined as a replica).
describeClusterConformance();
describeClusterSlots();
describeClusterFailover();
