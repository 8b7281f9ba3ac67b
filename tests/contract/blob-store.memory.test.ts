// The BlobStore contract against the in-memory fake the other tests use.
import { createMemoryBlobStore } from '../../src/adapters/blob/memory-blob-store.js';
import { describeBlobStoreContract } from './blob-store-contract.js';

describeBlobStoreContract('memory', async () => ({ store: createMemoryBlobStore(), cleanup: async () => {} }));
