// What the disk allows encrypted processing: BENCH_BYTES written to a new file in BENCH_DIR (the
// folder the server stores blobs in) in 1 MiB writes, then fdatasync'd, as processing must
// before a file is COMPLETED. Processing follows an upload that has just written as many bytes
// (the staged file), and this machine's disk is fast in bursts but sustains much less once they
// are spent, so the same number of bytes is written and synced first, untimed. In a process of
// its own; both files are removed after.
// Prints one JSON line: {bytes, seconds, megabytesPerSecond} (MB = 10^6 bytes).
import { randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';

const bytes = Number(process.env['BENCH_BYTES'] ?? String(1024 * 1024 * 1024));
const dir = process.env['BENCH_DIR'];
if (dir === undefined) throw new Error('BENCH_DIR is not set');
const block = randomBytes(1024 * 1024);

/** Writes `bytes` to a new file at `path` and syncs it; the seconds it took. */
async function writeSynced(path: string): Promise<number> {
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
    return (performance.now() - started) / 1000;
  } finally {
    await file.close();
  }
}

const staged = join(dir, `durable-write-${process.pid}-staged.bin`);
const stored = join(dir, `durable-write-${process.pid}-stored.bin`);
try {
  await writeSynced(staged);
  const seconds = await writeSynced(stored);
  console.log(JSON.stringify({ bytes, seconds, megabytesPerSecond: bytes / 1e6 / seconds }));
} finally {
  await rm(staged, { force: true });
  await rm(stored, { force: true });
}
