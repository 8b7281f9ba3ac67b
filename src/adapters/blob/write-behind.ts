// Sends a large file on its way to disk while it is still being written, so the fsync that makes it
// durable at the end has little left to do, and a failed flush fails the write (docs/architecture.md,
// "Blob stores", Write-behind; docs/performance-log.md, "figures from comments").
import { open, type FileHandle } from 'node:fs/promises';

export interface WriteBehind {
  /** Counts bytes handed to the file; starts a flush when enough have gone by. */
  wrote(bytes: number): void;
  /** Waits for the flush in progress and releases the descriptor; throws if a flush failed. */
  finish(): Promise<void>;
  /** Like finish, but never throws (for a write that failed anyway). */
  abandon(): Promise<void>;
}

export function writeBehind(path: string, everyBytes: number): WriteBehind {
  let unflushed = 0;
  let handle: Promise<FileHandle> | null = null;
  let flushing: Promise<void> | null = null;
  let failure: unknown = null;

  const flush = async () => {
    try {
      handle ??= open(path, 'r+');
      await (await handle).datasync();
    } catch (error) {
      failure ??= error;
    } finally {
      flushing = null;
    }
  };

  const release = async () => {
    await flushing;
    const opened = handle;
    handle = null;
    if (opened !== null) await (await opened.catch(() => null))?.close().catch(() => undefined);
  };

  return {
    wrote(bytes) {
      unflushed += bytes;
      if (flushing !== null || failure !== null || unflushed < everyBytes) return;
      unflushed = 0;
      flushing = flush();
    },
    async finish() {
      await release();
      if (failure !== null) throw failure as Error;
    },
    abandon: release,
  };
}
