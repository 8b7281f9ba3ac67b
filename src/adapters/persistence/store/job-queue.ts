// The durable queue of upload jobs, claimed under leases (docs/architecture.md, "Persistence notes").
import { and, asc, eq, isNull, lte, or } from 'drizzle-orm';
import type { JobQueue } from '../../../application/ports/job-queue.js';
import type { FileRecord, JobRecord } from '../../../application/records.js';
import { completeUpload, failUpload, type FileState, isClaimable } from '../../../domain/files.js';
import type { Instant } from '../../../domain/time.js';
import type { Db, Dialect } from '../dialect.js';
import { stateColumns, toJob } from '../row-mappers.js';
import { lockFile } from './file-store.js';
import type { RecordEvents } from './event-log.js';
import { fileEvent } from '../../../application/events/content-facts.js';

// The job and its file, both locked (the file first), while `workerId` holds the lease; else null.
async function lockHeldJob(d: Dialect, tx: Db, jobId: string, workerId: string): Promise<{ job: JobRecord; file: FileRecord | null } | null> {
  const { jobs } = d.t;
  const [peek] = await tx.select({ fileId: jobs.fileId, leaseOwner: jobs.leaseOwner }).from(jobs).where(eq(jobs.id, jobId));
  if (peek === undefined || peek.leaseOwner !== workerId) return null;
  const file = await lockFile(d, tx, eq(d.t.files.id, peek.fileId));
  const [row] = await d.locked(tx.select().from(jobs).where(eq(jobs.id, jobId)));
  return row !== undefined && row.leaseOwner === workerId ? { job: toJob(row), file } : null;
}

/** Writes a file's next state; the domain returns the state itself when nothing changes. */
async function settleFile(d: Dialect, tx: Db, fileId: string, before: FileState, next: FileState, now: Instant): Promise<void> {
  if (next === before) return;
  const { files } = d.t;
  const set = { ...stateColumns(next), updatedAt: now };
  await tx.update(files).set(set).where(eq(files.id, fileId));
}

export function jobQueue(d: Dialect, recordEvents: RecordEvents): JobQueue {
  const { jobs } = d.t;
  return {
    async claimJob(workerId, now, leaseMs) {
      return d.transaction(async (tx) => {
        // SQL picks the candidate; the domain's isClaimable has the last word.
        const dueAndFree = and(lte(jobs.runAfter, now), or(isNull(jobs.leaseUntil), lte(jobs.leaseUntil, now)));
        const [candidate] = await d.locked(tx.select().from(jobs).where(dueAndFree).orderBy(asc(jobs.runAfter), asc(jobs.createdAt), asc(jobs.seq)).limit(1), { skipLocked: true });
        if (candidate === undefined || !isClaimable(candidate, now)) return null;
        const leased = { leaseOwner: workerId, leaseUntil: now + leaseMs, attempts: candidate.attempts + 1 };
        const [row] = await tx.update(jobs).set(leased).where(eq(jobs.id, candidate.id)).returning();
        return row ? toJob(row) : null;
      });
    },
    async heartbeat(jobId, workerId, now, leaseMs) {
      // One conditional UPDATE: it locks the row and re-checks the owner on its latest version.
      const stillHeld = and(eq(jobs.id, jobId), eq(jobs.leaseOwner, workerId));
      const lease = { leaseUntil: now + leaseMs };
      const extended = await d.write((w) => w.update(jobs).set(lease).where(stillHeld).returning({ id: jobs.id }));
      return extended.length > 0;
    },
    async completeJob(jobId, workerId, contents, now, actor) {
      return d.transaction(async (tx) => {
        const held = await lockHeldJob(d, tx, jobId, workerId);
        if (held === null) return 'lost' as const;
        const { job, file } = held;
        // The staging upload is spent once the contents are stored, whatever the file makes of them.
        const keys = [job.stagingKey];
        if (file === null) {
          keys.push(contents.blobKey);
        } else {
          const { next, discard } = completeUpload(file.state, job.id, contents);
          await settleFile(d, tx, file.id, file.state, next, now);
          if (discard !== null) keys.push(discard);
          // Only the upload the file awaited completes it; a superseded one changes nothing.
          if (next !== file.state && next.processingStatus === 'COMPLETED') {
            await recordEvents(tx, actor, [fileEvent('file.completed', { ...file, state: next, updatedAt: now })], now);
          }
        }
        await tx.delete(jobs).where(eq(jobs.id, job.id));
        return [...new Set(keys)];
      });
    },
    async failJob(jobId, workerId, message, now, retryInMs, actor) {
      return d.transaction(async (tx) => {
        const held = await lockHeldJob(d, tx, jobId, workerId);
        if (held === null) return 'lost' as const;
        const { job, file } = held;
        if (retryInMs !== null) {
          const released = { leaseOwner: null, leaseUntil: null, runAfter: now + retryInMs };
          await tx.update(jobs).set(released).where(eq(jobs.id, job.id));
          return [];
        }
        if (file !== null) {
          const next = failUpload(file.state, job.id, message);
          await settleFile(d, tx, file.id, file.state, next, now);
          if (next !== file.state) await recordEvents(tx, actor, [fileEvent('file.failed', { ...file, state: next, updatedAt: now })], now);
        }
        await tx.delete(jobs).where(eq(jobs.id, job.id));
        return [...new Set([job.stagingKey, job.outputKey])];
      });
    },
    async jobTimes() {
      // Jobs are the uploads in flight: few rows, read whole so the domain's jobPhase sorts them.
      return d.db.select({ createdAt: jobs.createdAt, runAfter: jobs.runAfter, leaseUntil: jobs.leaseUntil }).from(jobs);
    },
  };
}
