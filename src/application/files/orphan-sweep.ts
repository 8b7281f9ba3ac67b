import type { Deps } from '../deps.js';
import type { FileStore } from '../ports/file-store.js';

/** An object becomes visible only once written whole (temp and rename, or a completed multipart
 * upload), and its row follows within the same request; anything unreferenced this long after
 * its last write is left over from a crash. */
export const ORPHAN_GRACE_MS = 10 * 60_000;

/** Deletes blobs that no file or job refers to any more. Returns how many it removed. */
export async function sweepOrphanBlobs(deps: Pick<Deps, 'blobs'> & { store: FileStore }, graceMs = ORPHAN_GRACE_MS, now = Date.now()): Promise<number> {
  // Blob times come from the storage's own clock, not the service clock.
  const cutoff = now - graceMs;
  // Listed before the references are read: a blob written and referenced in between is
  // either too young to sweep or already referenced.
  const candidates: string[] = [];
  for await (const blob of deps.blobs.list('')) if (blob.modifiedAt < cutoff) candidates.push(blob.key);
  if (candidates.length === 0) return 0;
  const referenced = await deps.store.referencedBlobKeys();
  const orphans = candidates.filter((key) => !referenced.has(key));
  await Promise.all(orphans.map((key) => deps.blobs.delete(key)));
  return orphans.length;
}
