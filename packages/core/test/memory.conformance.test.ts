import { createMemoryQueue } from '../src/memory/memory-queue';
import { createMemoryStore } from '../src/memory/memory-store';
import { describeQueueConformance, describeStoreConformance } from '../src/testing';

describeStoreConformance('memory', () => ({ store: createMemoryStore() }));
describeQueueConformance('memory', () => ({ queue: createMemoryQueue() }));
