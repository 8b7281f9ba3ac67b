// The job queue: claiming under leases, heartbeats, completion (contents swapped in), failures
// with retry or for good, and claims raced over two connections.
import { expect } from 'vitest';
import { jobPhase, storageStatus } from '../../src/domain/files.js';
import type { ContractContext } from './store-contract.js';
import { LEASE_MS, must, patchOf, storedFile } from './contract-files.js';
import { jobKeys, makeContents, makeJob, makeUpload, seedApp, T0 } from './fixtures.js';
import { SYSTEM } from '../../src/application/events/actor.js';

export function jobContract({ store, connect, test, section }: ContractContext): void {
  section('jobs', () => {
    test('claimJob takes due jobs by run_after, then creation; null when none is due', async () => {
      const { app } = await seedApp(store());
      const late = makeUpload(app.id, {}, { runAfter: T0 + 10 });
      const early = makeUpload(app.id, {}, { createdAt: T0 + 2 });
      const earliest = makeUpload(app.id, {}, { createdAt: T0 + 1, runAfter: T0 - 5 });
      const sameTime = makeUpload(app.id, {}, { createdAt: T0 + 2 });
      for (const u of [late, early, earliest, sameTime]) await store().createFile(u.file, u.job);
      const order = [];
      for (let i = 0; i < 4; i++) order.push((await store().claimJob('w', T0, LEASE_MS))?.id ?? null);
      expect(order).toEqual([earliest.job.id, early.job.id, sameTime.job.id, null]);
      expect((await store().claimJob('w', T0 + 10, LEASE_MS))?.id).toBe(late.job.id);
      expect(await store().claimJob('w', T0 + 10, LEASE_MS)).toBeNull();
      // Claiming leases the jobs; they stay in the queue.
      expect(await store().referencedBlobKeys()).toEqual(jobKeys(late.job, early.job, earliest.job, sameTime.job));
    });

    test('a claimed job is held until its lease lapses; heartbeats extend it; a takeover makes the first worker lose it', async () => {
      const { app } = await seedApp(store());
      const { file, job } = makeUpload(app.id);
      await store().createFile(file, job);
      expect(await store().claimJob('w1', T0, 1000)).toEqual({ ...job, attempts: 1, leaseOwner: 'w1', leaseUntil: T0 + 1000 });
      expect(await store().claimJob('w2', T0 + 999, 1000)).toBeNull();
      expect(await store().heartbeat(job.id, 'w2', T0 + 500, 1000)).toBe(false);
      expect(await store().heartbeat(job.id, 'w1', T0 + 500, 1000)).toBe(true);
      expect(await store().claimJob('w2', T0 + 1000, 1000)).toBeNull();
      const takeover = await store().claimJob('w2', T0 + 1500, 1000);
      expect(takeover).toEqual({ ...job, attempts: 2, leaseOwner: 'w2', leaseUntil: T0 + 2500 });
      // The first worker no longer holds the job: nothing it reports changes anything.
      expect(await store().heartbeat(job.id, 'w1', T0 + 1600, 1000)).toBe(false);
      expect(await store().completeJob(job.id, 'w1', makeContents(job), T0 + 1600, SYSTEM)).toBe('lost');
      expect(await store().failJob(job.id, 'w1', 'boom', T0 + 1600, 1000, SYSTEM)).toBe('lost');
      expect(await store().failJob(job.id, 'w1', 'boom', T0 + 1600, null, SYSTEM)).toBe('lost');
      expect(await store().findFile(app.id, file.id)).toEqual(file);
      expect(await store().claimJob('w3', T0 + 2499, 1000)).toBeNull();
      expect(await store().completeJob(job.id, 'w2', makeContents(job), T0 + 1700, SYSTEM)).toEqual([job.stagingKey]);
      expect(await store().heartbeat(job.id, 'w2', T0 + 1800, 1000)).toBe(false);
      expect(await store().completeJob(job.id, 'w2', makeContents(job), T0 + 1800, SYSTEM)).toBe('lost');
    });

    test('completeJob swaps the new contents in and returns the staging and replaced keys', async () => {
      const { app } = await seedApp(store());
      const { file, contents: previous } = await storedFile(store(), app.id);
      expect(storageStatus(file.state)).toBe('STORED');
      const job = makeJob(file, { encrypt: true });
      await store().replaceFileContents(app.id, file.id, patchOf({ storeEncrypted: true }), job);
      expect((await store().claimJob('w', T0 + 100, LEASE_MS))?.id).toBe(job.id);
      const contents = makeContents(job);
      expect(await store().completeJob(job.id, 'w', contents, T0 + 200, SYSTEM)).toEqual([job.stagingKey, previous.blobKey]);
      const done = must(await store().findFile(app.id, file.id));
      expect(done.state).toEqual({ processingStatus: 'COMPLETED', stored: contents, pendingJobId: null, processingError: null });
      expect(storageStatus(done.state)).toBe('STORED');
      expect(done.updatedAt).toBe(T0 + 200);
      // The job is gone: its keys are no longer held.
      expect(await store().referencedBlobKeys()).toEqual(new Set([contents.blobKey]));
    });

    test('a job superseded while in flight: its keys come back from the replacement, its completion is lost', async () => {
      const { app } = await seedApp(store());
      const { file, job: superseded } = makeUpload(app.id);
      await store().createFile(file, superseded);
      expect((await store().claimJob('w1', T0, LEASE_MS))?.id).toBe(superseded.id);
      const job = makeJob(file);
      const replaced = must(await store().replaceFileContents(app.id, file.id, patchOf(), job));
      expect(replaced.discard).toContain(superseded.outputKey);
      expect(await store().completeJob(superseded.id, 'w1', makeContents(superseded), T0 + 10, SYSTEM)).toBe('lost');
      expect(await store().findFile(app.id, file.id)).toEqual(replaced.file);
      expect((await store().claimJob('w2', T0 + 10, LEASE_MS))?.id).toBe(job.id);
    });

    test('failJob with a retry releases the job until the delay passes; attempts count claims', async () => {
      const { app } = await seedApp(store());
      const { file, job } = makeUpload(app.id);
      await store().createFile(file, job);
      await store().claimJob('w1', T0, LEASE_MS);
      expect(await store().failJob(job.id, 'w1', 'storage hiccup', T0 + 100, 4000, SYSTEM)).toEqual([]);
      expect(await store().heartbeat(job.id, 'w1', T0 + 200, LEASE_MS)).toBe(false);
      expect(await store().claimJob('w2', T0 + 4099, LEASE_MS)).toBeNull();
      expect(await store().claimJob('w2', T0 + 4100, LEASE_MS)).toEqual({
        ...job,
        attempts: 2,
        runAfter: T0 + 4100,
        leaseOwner: 'w2',
        leaseUntil: T0 + 4100 + LEASE_MS,
      });
      expect(await store().findFile(app.id, file.id)).toEqual(file);
      expect(await store().failJob(job.id, 'w2', 'again', T0 + 4200, 0, SYSTEM)).toEqual([]);
      expect((await store().claimJob('w3', T0 + 4200, LEASE_MS))?.attempts).toBe(3);
    });

    test('jobTimes lists every queued job with its times, whatever its phase; jobPhase sorts them', async () => {
      const { app } = await seedApp(store());
      const running = makeUpload(app.id, {}, { createdAt: T0 + 1 });
      const retrying = makeUpload(app.id, {}, { createdAt: T0 + 2 });
      const due = makeUpload(app.id, {}, { createdAt: T0 + 3, runAfter: T0 + 50 });
      for (const u of [running, retrying, due]) await store().createFile(u.file, u.job);
      await store().claimJob('w1', T0 + 10, LEASE_MS);
      await store().claimJob('w1', T0 + 10, LEASE_MS);
      await store().failJob(retrying.job.id, 'w1', 'hiccup', T0 + 20, 4000, SYSTEM);
      const times = await store().jobTimes();
      const byCreation = [...times].sort((a, b) => a.createdAt - b.createdAt);
      expect(byCreation).toEqual([
        { createdAt: T0 + 1, runAfter: running.job.runAfter, leaseUntil: T0 + 10 + LEASE_MS },
        { createdAt: T0 + 2, runAfter: T0 + 4020, leaseUntil: null },
        { createdAt: T0 + 3, runAfter: T0 + 50, leaseUntil: null },
      ]);
      expect(byCreation.map((j) => jobPhase(j, T0 + 100))).toEqual(['running', 'retrying', 'due']);
      await store().completeJob(running.job.id, 'w1', makeContents(running.job), T0 + 200, SYSTEM);
      expect((await store().jobTimes()).map((j) => j.createdAt).sort()).toEqual([T0 + 2, T0 + 3]);
    });

    test('a final failJob marks the file FAILED, keeps the previous contents and drops the job', async () => {
      const { app } = await seedApp(store());
      const { file, contents } = await storedFile(store(), app.id);
      const job = makeJob(file);
      await store().replaceFileContents(app.id, file.id, patchOf(), job);
      await store().claimJob('w', T0 + 100, LEASE_MS);
      expect(await store().failJob(job.id, 'w', 'could not read the upload', T0 + 200, null, SYSTEM)).toEqual([job.stagingKey, job.outputKey]);
      const failed = must(await store().findFile(app.id, file.id));
      expect(failed.state).toEqual({ processingStatus: 'FAILED', stored: contents, pendingJobId: null, processingError: 'could not read the upload' });
      expect(storageStatus(failed.state)).toBe('STORED');
      expect(failed.updatedAt).toBe(T0 + 200);
      expect(await store().referencedBlobKeys()).toEqual(new Set([contents.blobKey]));
      expect(await store().claimJob('w', T0 + 10_000_000, LEASE_MS)).toBeNull();
    });

    test('a final failure of a first upload leaves the file NOT_STORED', async () => {
      const { app } = await seedApp(store());
      const { file, job } = makeUpload(app.id);
      await store().createFile(file, job);
      await store().claimJob('w', T0, LEASE_MS);
      await store().failJob(job.id, 'w', 'x'.repeat(5000), T0 + 1, null, SYSTEM);
      const failed = must(await store().findFile(app.id, file.id));
      expect(failed.state).toMatchObject({ processingStatus: 'FAILED', stored: null, pendingJobId: null });
      expect(failed.state.processingError).toHaveLength(1000);
      expect(storageStatus(failed.state)).toBe('NOT_STORED');
    });

    test('20 parallel claims over two connections: each of 5 jobs is claimed exactly once', async () => {
      const { app } = await seedApp(store());
      const uploads = Array.from({ length: 5 }, (_, i) => makeUpload(app.id, {}, { createdAt: T0 + i }));
      for (const u of uploads) await store().createFile(u.file, u.job);
      const peer = await connect();
      const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? store() : peer).claimJob(`w${i}`, T0, LEASE_MS)));
      const claimed = claims.filter((j) => j !== null);
      expect(claimed.map((j) => j.id).sort()).toEqual(uploads.map((u) => u.job.id).sort());
      expect(claimed.every((j) => j.attempts === 1)).toBe(true);
      expect(await peer.claimJob('late', T0 + 1, LEASE_MS)).toBeNull();
    });
  });
}
