// What the disk allows encrypted processing: BENCH_BYTES written to a new file in BENCH_DIR (the
// folder the server stores blobs in) in 1 MiB writes, then fdatasync'd, as processing must
// before a file is COMPLETED. In a process of its own; the file is removed after.
// Prints one JSON line: {bytes, seconds, megabytesPerSecond} (MB = 10^6 bytes).
import { randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';

const bytes = Number(process.env['BENCH_BYTES'] ?? String(1024 * 1024 * 1024));
const dir = process.env['BENCH_DIR'];
if (dir === undefined) throw new Error('BENCH_DIR is not set');
const path = join(dir, `durable-write-${process.pid}.bin`);
const block = randomBytes(1024 * 1024);
const file = await open(path, 'wx');
try {
  const started = performance.now();
  let done = 0;
  while (done < bytes) {
    const piece = Math.min(block.length, bytes - done);
    await file.write(block, 0, piece);
    done += piece;
  }
  await file.datasync();
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ bytes, seconds, megabytesPerSecond: bytes / 1e6 / seconds }));
} finally {
  await file.close();
  await rm(path, { force: true });
}
