// The durable queue of upload jobs. Workers (in any process sharing the database) claim a job
// under a lease, heartbeat while they work and settle it; a lease that lapses lets another worker
// take the job over, after which the first worker's settlement is 'lost'. Claiming and settling
// each run in one BEGIN IMMEDIATE transaction, so a job is held by one worker at a time.
import { and, asc, count, eq, isNull, lte, or } from 'drizzle-orm';
import type { JobQueue, JobRecord } from '../../../application/ports.js';
import { completeUpload, failUpload, type FileState, isClaimable } from '../../../domain/files.js';
import type { Instant } from '../../../domain/time.js';
import type { Connection, Db } from './db.js';
import { findFileById } from './file-store.js';
import { stateColumns, toJob } from '../files-row-mappers.js';
import { files, jobs } from './schema.js';

/** The job while `workerId` holds its lease; null when it is gone or another worker took it. */
function heldJob(tx: Db, jobId: string, workerId: string): JobRecord | null {
  const row = tx.select().from(jobs).where(eq(jobs.id, jobId)).get();
  return row !== undefined && row.leaseOwner === workerId ? toJob(row) : null;
}

/** Writes a file's next state; the domain returns the state itself when nothing changes. */
function settleFile(tx: Db, fileId: string, before: FileState, next: FileState, now: Instant): void {
  if (next === before) return;
  tx.update(files)
    .set({ ...stateColumns(next), updatedAt: now })
    .where(eq(files.id, fileId))
    .run();
}

export function jobQueue({ db, immediate }: Connection): JobQueue {
  return {
    async claimJob(workerId, now, leaseMs) {
      return immediate((tx) => {
        // SQL only picks the candidate (oldest due and unleased, by run_after over its index);
        // the domain's isClaimable has the last word.
        const candidate = tx
          .select()
          .from(jobs)
          .where(and(lte(jobs.runAfter, now), or(isNull(jobs.leaseUntil), lte(jobs.leaseUntil, now))))
          .orderBy(asc(jobs.runAfter), asc(jobs.createdAt), asc(jobs.seq))
          .limit(1)
          .get();
        if (candidate === undefined || !isClaimable(candidate, now)) return null;
        const row = tx
          .update(jobs)
          .set({ leaseOwner: workerId, leaseUntil: now + leaseMs, attempts: candidate.attempts + 1 })
          .where(eq(jobs.id, candidate.id))
          .returning()
          .get();
        return row ? toJob(row) : null;
      });
    },

    async heartbeat(jobId, workerId, now, leaseMs) {
      return (
        db
          .update(jobs)
          .set({ leaseUntil: now + leaseMs })
          .where(and(eq(jobs.id, jobId), eq(jobs.leaseOwner, workerId)))
          .run().changes > 0
      );
    },

    async completeJob(jobId, workerId, contents, now) {
      return immediate((tx) => {
        const job = heldJob(tx, jobId, workerId);
        if (job === null) return 'lost' as const;
        // The staging upload is spent once the contents are stored, whatever the file makes of them.
        const keys = [job.stagingKey];
        const file = findFileById(tx, job.fileId);
        if (file === null) {
          keys.push(contents.blobKey);
        } else {
          const { next, discard } = completeUpload(file.state, job.id, contents);
          settleFile(tx, file.id, file.state, next, now);
          if (discard !== null) keys.push(discard);
        }
        tx.delete(jobs).where(eq(jobs.id, job.id)).run();
        return [...new Set(keys)];
      });
    },

    async failJob(jobId, workerId, message, now, retryInMs) {
      return immediate((tx) => {
        const job = heldJob(tx, jobId, workerId);
        if (job === null) return 'lost' as const;
        if (retryInMs !== null) {
          tx.update(jobs)
            .set({ leaseOwner: null, leaseUntil: null, runAfter: now + retryInMs })
            .where(eq(jobs.id, job.id))
            .run();
          return [];
        }
        const file = findFileById(tx, job.fileId);
        if (file !== null) settleFile(tx, file.id, file.state, failUpload(file.state, job.id, message), now);
        tx.delete(jobs).where(eq(jobs.id, job.id)).run();
        return [...new Set([job.stagingKey, job.outputKey])];
      });
    },

    async countJobs() {
      return db.select({ n: count() }).from(jobs).get()?.n ?? 0;
    },
  };
}
