// Files and their contents: creating, replacing (the previous contents stay served while the new
// ones are processed), upserting by name, metadata, deleting, and the blob keys they hold.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { FileMetadataPatch } from '../../src/application/ports/file-store.js';
import type { Store } from '../../src/application/ports/store.js';
import { acceptUpload } from '../../src/domain/files.js';
import type { ContractContext } from './store-contract.js';
import { domainError, jobKeys, makeContents, makeJob, makeUpload, seedApp, T0 } from './fixtures.js';
import { SYSTEM } from '../../src/application/events/actor.js';

export const LEASE_MS = 30_000;

export const patchOf = (over: Partial<FileMetadataPatch> = {}): FileMetadataPatch => ({
  isPublic: false,
  storeEncrypted: false,
  source: 'ADMIN_API',
  updatedAt: T0 + 1000,
  ...over,
});

export function must<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('expected a value');
  return value;
}

/** A file whose first upload has been processed: COMPLETED, its contents stored. */
export async function storedFile(store: Store, applicationId: string, name?: string) {
  const { file, job } = makeUpload(applicationId, name === undefined ? {} : { name });
  await store.createFile(file, job);
  expect((await store.claimJob('seed-worker', T0, LEASE_MS))?.id).toBe(job.id);
  const contents = makeContents(job);
  expect(await store.completeJob(job.id, 'seed-worker', contents, T0 + 10, SYSTEM)).toEqual([job.stagingKey]);
  return { file: must(await store.findFile(applicationId, file.id)), job, contents };
}

export function fileContract({ store, test, section }: ContractContext): void {
  section('files', () => {
    test('createFile stores a PENDING file with its job; find and list are scoped to the application', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const later = makeUpload(app.id, { createdAt: T0 + 5, name: 'later' });
      const first = makeUpload(app.id, { name: 'first' });
      const second = makeUpload(app.id, { createdAt: T0 + 1, name: 'second' });
      for (const u of [later, second, first]) await store().createFile(u.file, u.job);
      const foreign = makeUpload(other.id, { name: 'first' });
      await store().createFile(foreign.file, foreign.job);
      expect(await store().findFile(app.id, first.file.id)).toEqual({ ...first.file, state: acceptUpload(null, first.job.id) });
      expect(first.file.state).toEqual({ processingStatus: 'PENDING', stored: null, pendingJobId: first.job.id, processingError: null });
      expect((await store().listFiles(app.id)).map((f) => f.name)).toEqual(['first', 'second', 'later']);
      expect(await store().findFile(other.id, first.file.id)).toBeNull();
      expect(await store().findFile(app.id, randomUUID())).toBeNull();
      expect(await store().listFiles(randomUUID())).toEqual([]);
      expect(await store().referencedBlobKeys()).toEqual(jobKeys(later.job, second.job, first.job, foreign.job));
    });

    test('createFile refuses a name used in the application with FILE_NAME_TAKEN and writes nothing', async () => {
      const { app } = await seedApp(store());
      const taken = makeUpload(app.id, { name: 'report.pdf' });
      await store().createFile(taken.file, taken.job);
      const clash = makeUpload(app.id, { name: 'report.pdf' });
      await domainError(store().createFile(clash.file, clash.job), 'FILE_NAME_TAKEN');
      expect(await store().findFile(app.id, clash.file.id)).toBeNull();
      // The job insert that would follow the file's was rolled back with it.
      expect(await store().referencedBlobKeys()).toEqual(jobKeys(taken.job));
      expect((await store().claimJob('w', T0, LEASE_MS))?.id).toBe(taken.job.id);
      expect(await store().claimJob('w', T0, LEASE_MS)).toBeNull();
      // Names are case-sensitive metadata, unique per application only.
      const { app: other } = await seedApp(store());
      const elsewhere = makeUpload(other.id, { name: 'report.pdf' });
      await store().createFile(elsewhere.file, elsewhere.job);
      const cased = makeUpload(app.id, { name: 'Report.pdf' });
      await store().createFile(cased.file, cased.job);
    });

    test('replaceFileContents sets PENDING on the new job, keeps the stored contents and patches metadata', async () => {
      const { app } = await seedApp(store());
      const { file, contents } = await storedFile(store(), app.id, 'a.bin');
      expect(file.state).toEqual({ processingStatus: 'COMPLETED', stored: contents, pendingJobId: null, processingError: null });
      const job = makeJob(file);
      const patch = patchOf({ name: 'b.txt', mimeType: 'text/plain', originalFilename: 'b.txt', isPublic: true, storeEncrypted: true, source: 'DASHBOARD' });
      const replaced = await store().replaceFileContents(app.id, file.id, patch, job);
      const expected = {
        ...file,
        name: 'b.txt',
        mimeType: 'text/plain',
        originalFilename: 'b.txt',
        isPublic: true,
        storeEncrypted: true,
        source: 'DASHBOARD',
        updatedAt: T0 + 1000,
        state: { processingStatus: 'PENDING', stored: contents, pendingJobId: job.id, processingError: null },
      };
      expect(replaced).toEqual({ file: expected, discard: [] });
      expect(await store().findFile(app.id, file.id)).toEqual(expected);
      // mimeType and originalFilename are kept when the patch leaves them out.
      const again = await store().replaceFileContents(app.id, file.id, patchOf({ updatedAt: T0 + 2000 }), makeJob(file));
      expect(again?.file).toMatchObject({ name: 'b.txt', mimeType: 'text/plain', originalFilename: 'b.txt', isPublic: false, source: 'ADMIN_API' });
      expect(again?.file.state.stored).toEqual(contents);
    });

    test('replaceFileContents drops a superseded pending job and returns its blob keys', async () => {
      const { app } = await seedApp(store());
      const { file, job: superseded } = makeUpload(app.id);
      await store().createFile(file, superseded);
      const job = makeJob(file, { createdAt: T0 + 1 });
      const replaced = await store().replaceFileContents(app.id, file.id, patchOf(), job);
      expect(replaced?.discard).toEqual([superseded.stagingKey, superseded.outputKey]);
      expect(replaced?.file.state).toEqual({ processingStatus: 'PENDING', stored: null, pendingJobId: job.id, processingError: null });
      expect(await store().referencedBlobKeys()).toEqual(jobKeys(job));
      expect((await store().claimJob('w', T0 + 5, LEASE_MS))?.id).toBe(job.id);
    });

    test('replaceFileContents: null for a missing or foreign file; a rename clash rolls everything back', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const { file, job } = makeUpload(app.id, { name: 'one' });
      await store().createFile(file, job);
      const taken = makeUpload(app.id, { name: 'two' });
      await store().createFile(taken.file, taken.job);
      expect(await store().replaceFileContents(other.id, file.id, patchOf(), makeJob({ id: file.id, applicationId: other.id }))).toBeNull();
      expect(await store().replaceFileContents(app.id, randomUUID(), patchOf(), makeJob(file))).toBeNull();
      await domainError(store().replaceFileContents(app.id, file.id, patchOf({ name: 'two' }), makeJob(file)), 'FILE_NAME_TAKEN');
      // The superseded job and the file's state are untouched, and no new job was written.
      expect(await store().findFile(app.id, file.id)).toEqual(file);
      expect(await store().referencedBlobKeys()).toEqual(jobKeys(job, taken.job));
    });

    test('upsertFileByName creates, then replaces under the same id with the new metadata', async () => {
      const { app } = await seedApp(store());
      const first = makeUpload(app.id, { name: 'config.json' });
      const created = await store().upsertFileByName(first.file, first.job);
      expect(created).toEqual({ file: first.file, created: true, discard: [] });
      const second = makeUpload(
        app.id,
        { name: 'config.json', isPublic: true, storeEncrypted: true, mimeType: 'application/json', originalFilename: 'c.json', source: 'DASHBOARD', createdAt: T0 + 50, updatedAt: T0 + 50 },
        { createdAt: T0 + 50 },
      );
      const replaced = await store().upsertFileByName(second.file, second.job);
      expect(replaced).toEqual({
        file: {
          ...second.file,
          id: first.file.id,
          createdAt: T0,
          state: { processingStatus: 'PENDING', stored: null, pendingJobId: second.job.id, processingError: null },
        },
        created: false,
        discard: [first.job.stagingKey, first.job.outputKey],
      });
      expect(await store().findFile(app.id, second.file.id)).toBeNull();
      expect(await store().listFiles(app.id)).toEqual([replaced.file]);
      // The new job was bound to the existing file.
      const claimed = await store().claimJob('w', T0 + 50, LEASE_MS);
      expect(claimed).toMatchObject({ id: second.job.id, fileId: first.file.id });
      expect(await store().completeJob(second.job.id, 'w', makeContents(second.job), T0 + 60, SYSTEM)).toEqual([second.job.stagingKey]);
      expect((await store().findFile(app.id, first.file.id))?.state.processingStatus).toBe('COMPLETED');
    });

    test('upsertFileByName keeps the stored contents of the file it replaces', async () => {
      const { app } = await seedApp(store());
      const { file, contents } = await storedFile(store(), app.id, 'keep.bin');
      const next = makeUpload(app.id, { name: 'keep.bin' });
      const { file: replaced, created } = await store().upsertFileByName(next.file, next.job);
      expect(created).toBe(false);
      expect(replaced.state).toEqual({ processingStatus: 'PENDING', stored: contents, pendingJobId: next.job.id, processingError: null });
      expect(replaced.id).toBe(file.id);
    });

    test('updateFileMetadata changes metadata only; FILE_NAME_TAKEN on a clash; null when missing', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const { file } = await storedFile(store(), app.id, 'old-name');
      const taken = makeUpload(app.id, { name: 'taken' });
      await store().createFile(taken.file, taken.job);
      const updated = await store().updateFileMetadata(app.id, file.id, patchOf({ name: 'new-name', isPublic: true, source: 'DASHBOARD', updatedAt: T0 + 77 }));
      const expected = { ...file, name: 'new-name', isPublic: true, source: 'DASHBOARD', updatedAt: T0 + 77 };
      expect(updated).toEqual(expected);
      const typed = await store().updateFileMetadata(app.id, file.id, patchOf({ mimeType: 'image/png', originalFilename: 'p.png', updatedAt: T0 + 78 }));
      expect(typed).toMatchObject({ name: 'new-name', mimeType: 'image/png', originalFilename: 'p.png', isPublic: false, state: file.state });
      await domainError(store().updateFileMetadata(app.id, file.id, patchOf({ name: 'taken' })), 'FILE_NAME_TAKEN');
      expect((await store().findFile(app.id, file.id))?.name).toBe('new-name');
      expect(await store().updateFileMetadata(other.id, file.id, patchOf({ name: 'stolen' }))).toBeNull();
      expect(await store().updateFileMetadata(app.id, randomUUID(), patchOf())).toBeNull();
    });

    test('deleteFile removes the file and its jobs and returns every blob key they held', async () => {
      const { app } = await seedApp(store());
      const { app: other } = await seedApp(store());
      const { file, contents } = await storedFile(store(), app.id);
      const pending = makeJob(file);
      await store().replaceFileContents(app.id, file.id, patchOf(), pending);
      const bystander = makeUpload(app.id);
      await store().createFile(bystander.file, bystander.job);
      expect(await store().deleteFile(other.id, file.id, T0, SYSTEM)).toBeNull();
      const keys = await store().deleteFile(app.id, file.id, T0, SYSTEM);
      expect([...(keys ?? [])].sort()).toEqual([contents.blobKey, pending.stagingKey, pending.outputKey].sort());
      expect(await store().findFile(app.id, file.id)).toBeNull();
      expect(await store().referencedBlobKeys()).toEqual(jobKeys(bystander.job));
      expect(await store().deleteFile(app.id, file.id, T0, SYSTEM)).toBeNull();
      expect(await store().listFiles(app.id)).toEqual([bystander.file]);
    });

    test('referencedBlobKeys holds every stored contents and staged upload, and no output key (no blob has one)', async () => {
      const { app } = await seedApp(store());
      expect(await store().referencedBlobKeys()).toEqual(new Set());
      const { file, contents } = await storedFile(store(), app.id);
      const pending = makeJob(file);
      await store().replaceFileContents(app.id, file.id, patchOf(), pending);
      const { app: other } = await seedApp(store());
      const fresh = makeUpload(other.id);
      await store().createFile(fresh.file, fresh.job);
      expect(await store().referencedBlobKeys()).toEqual(new Set([contents.blobKey, pending.stagingKey, fresh.job.stagingKey]));
      await store().deleteFile(app.id, file.id, T0, SYSTEM);
      expect(await store().referencedBlobKeys()).toEqual(new Set([fresh.job.stagingKey]));
    });

    test('deleting the application removes its files and jobs', async () => {
      const { app } = await seedApp(store());
      const { file } = await storedFile(store(), app.id);
      await store().replaceFileContents(app.id, file.id, patchOf(), makeJob(file));
      expect(await store().deleteApplication(app.id)).toBe(true);
      // No job is left either: each would still hold its keys.
      expect(await store().referencedBlobKeys()).toEqual(new Set());
    });
  });
}
