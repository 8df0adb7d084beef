import { describePausedEndpointScenario } from '@svc/test-support/paused-endpoint-scenario';
import { createMemoryQueue, createMemoryStore } from '../src/index';

// One store and queue stand for the shared backend: every simulated process gets the same pair.
const store = createMemoryStore();
const queue = createMemoryQueue();

describePausedEndpointScenario({ name: 'the memory store', open: () => ({ store, queue }) });
