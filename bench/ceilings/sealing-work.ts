// Ceiling of encrypted upload processing: the work the server's processing cannot avoid, run as
// the server runs it (src/adapters/crypto/crypto-workers.ts): one worker thread seals the
// plaintext (its sha256, then AES-256-GCM chunk by chunk in the stored format) while another
// hashes the sealed bytes (their sha256), both over BENCH_BYTES, at once. No I/O, no hand-offs.
// Prints one JSON line: {bytes, seconds, megabytesPerSecond} (MB = 10^6 bytes).
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { DEFAULT_CHUNK_SIZE, encryptedSize, HEADER_LENGTH } from '../../src/file-format/encrypted-file.js';

const bytes = Number(process.env['BENCH_BYTES'] ?? String(1024 * 1024 * 1024));

// Each worker warms up on 16 MiB, says 'ready', and on 'go' goes through its bytes in 1 MiB
// batches and says 'done'. `seal`: sha256 and sealing of the plaintext; otherwise sha256 only.
const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { createCipheriv, createHash, createSecretKey, randomBytes } = require('node:crypto');
const { seal, bytes, chunkSize, headerLength } = workerData;
// One key and nonce for every chunk: the output is thrown away, only the work counts.
const batch = randomBytes(1024 * 1024);
const key = createSecretKey(randomBytes(32));
const aad = randomBytes(headerLength);
const nonce = randomBytes(12);
function run(total) {
  const hash = createHash('sha256');
  for (let done = 0; done < total; done += batch.length) {
    const piece = batch.subarray(0, Math.min(batch.length, total - done));
    hash.update(piece);
    if (!seal) continue;
    for (let read = 0; read < piece.length; read += chunkSize) {
      const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
      cipher.setAAD(aad);
      cipher.update(piece.subarray(read, Math.min(read + chunkSize, piece.length)));
      cipher.final();
      cipher.getAuthTag();
    }
  }
  return hash.digest('hex');
}
run(16 * 1024 * 1024);
parentPort.postMessage('ready');
parentPort.once('message', () => {
  run(bytes);
  parentPort.postMessage('done');
});
`;

const start = async (seal: boolean, total: number): Promise<Worker> => {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { seal, bytes: total, chunkSize: DEFAULT_CHUNK_SIZE, headerLength: HEADER_LENGTH } });
  await once(worker, 'message');
  return worker;
};
const workers = await Promise.all([start(true, bytes), start(false, encryptedSize(bytes))]);
const started = performance.now();
const finished = workers.map((w) => once(w, 'message'));
for (const w of workers) w.postMessage('go');
await Promise.all(finished);
const seconds = (performance.now() - started) / 1000;
await Promise.all(workers.map((w) => w.terminate()));
console.log(JSON.stringify({ bytes, seconds, megabytesPerSecond: bytes / 1e6 / seconds }));
