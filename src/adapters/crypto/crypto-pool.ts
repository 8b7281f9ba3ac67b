// The crypto workers of one process, and the two kinds of stream that use them: meters (size and
// sha256 of bytes passing through) and sealers (plaintext in, the encrypted file format out).
import { createCryptoWorkers } from './crypto-workers.js';
import { createMeter, type MeteredStream, type MeterOptions } from './off-thread-digest.js';
import { createSealer, type SealedStream, type SealerOptions } from './off-thread-sealing.js';

export interface CryptoPoolOptions extends MeterOptions, Omit<SealerOptions, 'format'> {
  /** Worker threads at most; default: one per CPU, at least 2 (an encrypted job uses two). */
  maxWorkers?: number;
}

export interface CryptoPool {
  /** A new meter; its stream may be used once. */
  meter(): MeteredStream;
  /** A new sealer under a 32-byte key; its stream may be used once. */
  sealer(key: Uint8Array, format?: SealerOptions['format']): SealedStream;
  /** Stops the workers now; streams using them fail. Later streams start new workers. */
  terminate(): Promise<void>;
}

export function createCryptoPool(options: CryptoPoolOptions = {}): CryptoPool {
  const workers = createCryptoWorkers(options.maxWorkers);
  const { batchBytes, maxInFlightBytes, batchChunks, maxInFlightBatches } = options;
  const meterOptions: MeterOptions = { ...(batchBytes === undefined ? {} : { batchBytes }), ...(maxInFlightBytes === undefined ? {} : { maxInFlightBytes }) };
  const sealerOptions: SealerOptions = { ...(batchChunks === undefined ? {} : { batchChunks }), ...(maxInFlightBatches === undefined ? {} : { maxInFlightBatches }) };
  return {
    meter: () => createMeter(workers, meterOptions),
    sealer: (key, format) => createSealer(workers, key, { ...sealerOptions, ...(format === undefined ? {} : { format }) }),
    terminate: () => workers.terminate(),
  };
}
