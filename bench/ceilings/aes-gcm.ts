// Ceiling of encrypted upload processing: raw AES-256-GCM throughput of node:crypto, one
// cipher over BENCH_BYTES of random data in 1 MiB updates, in a process of its own.
// Prints one JSON line: {bytes, seconds, megabytesPerSecond} (MB = 10^6 bytes).
import { createCipheriv, randomBytes } from 'node:crypto';

const bytes = Number(process.env['BENCH_BYTES'] ?? String(1024 * 1024 * 1024));
const block = randomBytes(1024 * 1024);
const cipher = createCipheriv('aes-256-gcm', randomBytes(32), randomBytes(12));
// Warm-up: the first calls pay for initialisation.
for (let i = 0; i < 16; i++) cipher.update(block);
const started = performance.now();
let done = 0;
while (done < bytes) {
  const piece = Math.min(block.length, bytes - done);
  cipher.update(piece === block.length ? block : block.subarray(0, piece));
  done += piece;
}
cipher.final();
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ bytes, seconds, megabytesPerSecond: bytes / 1e6 / seconds }));
