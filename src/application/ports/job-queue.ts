// The durable queue of upload jobs that file processors claim under a lease.
// Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { Actor } from '../events/actor.js';
import type { StoredContents } from '../../domain/files.js';
import type { Instant } from '../../domain/time.js';
import type { JobRecord } from '../records.js';

export interface JobQueue {
  /** ATOMIC: claims the oldest claimable job (isClaimable) under a lease; null when none. */
  claimJob(workerId: string, now: Instant, leaseMs: number): Promise<JobRecord | null>;
  /** Extends the lease; false when the worker no longer holds it. */
  heartbeat(jobId: string, workerId: string, now: Instant, leaseMs: number): Promise<boolean>;
  /** ATOMIC: the job's contents are stored: completeUpload of the domain, and the job is removed.
   * Returns the blob keys no longer needed (staging, replaced or superseded contents), or 'lost'
   * when the worker no longer holds the job (nothing changed). */
  completeJob(jobId: string, workerId: string, contents: StoredContents, now: Instant, actor: Actor): Promise<string[] | 'lost'>;
  /** ATOMIC: an attempt failed. While attempts remain, the job waits `retryInMs` and is released;
   * on the last, failUpload of the domain and the job is removed. Returns blob keys no longer
   * needed, or 'lost'. */
  failJob(jobId: string, workerId: string, message: string, now: Instant, retryInMs: number | null, actor: Actor): Promise<string[] | 'lost'>;
  /** When every queued job was made, is due and is leased until: what the metrics count (jobPhase). */
  jobTimes(): Promise<Array<Pick<JobRecord, 'createdAt' | 'runAfter' | 'leaseUntil'>>>;
}
