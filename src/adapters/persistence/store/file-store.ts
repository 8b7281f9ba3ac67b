// Files of an application and the jobs that bring their contents in (docs/architecture.md, "Persistence notes").
import { and, eq, isNotNull, type SQL } from 'drizzle-orm';
import type { FileMetadataPatch, FileStore } from '../../../application/ports/file-store.js';
import type { FileRecord, JobRecord } from '../../../application/records.js';
import { DomainError } from '../../../domain/errors.js';
import { acceptUpload } from '../../../domain/files.js';
import { type Db, type Dialect, firstAs, isUniqueViolation, ofApplication } from '../dialect.js';
import { fileRow, metadataColumns, stateColumns, toFile } from '../row-mappers.js';
import type { Lookups } from './lookups.js';
import type { RecordEvents } from './event-log.js';
import { fileEvent } from '../../../application/events/content-facts.js';

const nameTaken = () => new DomainError('FILE_NAME_TAKEN', 'a file with this name already exists');

/** Runs a write of `files`, reporting a clash of (application, name) as FILE_NAME_TAKEN. */
async function guardName<T>(d: Dialect, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (isUniqueViolation(d, e, d.t.files.name)) throw nameTaken();
    throw e;
  }
}

/** The file `where` selects, its row locked until the transaction ends. */
export const lockFile = (d: Dialect, tx: Db, where: SQL | undefined): Promise<FileRecord | null> => firstAs(d.locked(tx.select().from(d.t.files).where(where)), toFile);

const byName = (d: Dialect, applicationId: string, name: string) => and(eq(d.t.files.applicationId, applicationId), eq(d.t.files.name, name));

/** The job is bound to the file it is inserted for: the file's id and application win. */
async function insertJob(d: Dialect, tx: Db, file: FileRecord, job: JobRecord): Promise<void> {
  const { jobs } = d.t;
  await tx.insert(jobs).values({ ...job, fileId: file.id, applicationId: file.applicationId, ...d.insertionOrder('seq', jobs.seq) });
}

// Inserts `file` PENDING on `job`, and the job; null when the name is taken (a conditional insert).
async function insertNew(d: Dialect, tx: Db, file: FileRecord, job: JobRecord): Promise<FileRecord | null> {
  const { files } = d.t;
  // PENDING on its job, nothing stored: acceptUpload of no previous state.
  const record = { ...file, state: acceptUpload(null, job.id) };
  const row = fileRow(record);
  const sameName = [files.applicationId, files.name];
  const inserted = await tx.insert(files).values(row).onConflictDoNothing({ target: sameName }).returning({ id: files.id });
  if (inserted.length === 0) return null;
  await insertJob(d, tx, record, job);
  return record;
}

// New contents for `file`, whose row the caller has locked: PENDING on the new job, previous
// contents kept; the superseded job's row goes and its blobs are returned for deletion.
async function replaceIn(d: Dialect, tx: Db, file: FileRecord, patch: FileMetadataPatch, job: JobRecord): Promise<{ file: FileRecord; discard: string[] }> {
  const { files, jobs } = d.t;
  const state = acceptUpload(file.state, job.id);
  const discard: string[] = [];
  if (file.state.pendingJobId !== null) {
    const superseded = and(eq(jobs.id, file.state.pendingJobId), eq(jobs.fileId, file.id));
    const dropped = await tx.delete(jobs).where(superseded).returning({ stagingKey: jobs.stagingKey, outputKey: jobs.outputKey });
    for (const j of dropped) discard.push(j.stagingKey, j.outputKey);
  }
  const set = { ...metadataColumns(patch), ...stateColumns(state) };
  const [row] = await guardName(d, () => tx.update(files).set(set).where(eq(files.id, file.id)).returning());
  if (row === undefined) throw new Error(`file ${file.id} vanished inside its transaction`);
  const updated = toFile(row);
  await insertJob(d, tx, updated, job);
  return { file: updated, discard };
}

export function fileStore(d: Dialect, reads: Lookups, recordEvents: RecordEvents): FileStore {
  const { files, jobs } = d.t;
  return {
    async createFile(file, job) {
      await d.transaction(async (tx) => {
        if ((await insertNew(d, tx, file, job)) === null) throw nameTaken();
      });
    },
    async replaceFileContents(applicationId, fileId, patch, job) {
      return d.transaction(async (tx) => {
        const file = await lockFile(d, tx, ofApplication(files, applicationId, fileId));
        return file === null ? null : replaceIn(d, tx, file, patch, job);
      });
    },
    async upsertFileByName(file, job) {
      return d.transaction(async (tx) => {
        // The file's metadata is the patch, but for the name it is found by.
        const { name: _name, ...patch } = file;
        const existing = await lockFile(d, tx, byName(d, file.applicationId, file.name));
        if (existing !== null) return { ...(await replaceIn(d, tx, existing, patch, job)), created: false };
        const record = await insertNew(d, tx, file, job);
        if (record !== null) return { file: record, created: true, discard: [] };
        // Another transaction created the name first (PostgreSQL: between the read above and the
        // insert): the file it created is replaced like any existing one.
        const created = await lockFile(d, tx, byName(d, file.applicationId, file.name));
        // Created and deleted again meanwhile: the name was taken when this upload asked for it.
        if (created === null) throw nameTaken();
        return { ...(await replaceIn(d, tx, created, patch, job)), created: false };
      });
    },
    async updateFileMetadata(applicationId, fileId, patch) {
      // One UPDATE: nothing is read before it, so no transaction is needed.
      const theFile = ofApplication(files, applicationId, fileId);
      const [row] = await guardName(d, () => d.write((w) => w.update(files).set(metadataColumns(patch)).where(theFile).returning()));
      return row ? toFile(row) : null;
    },
    findFile: reads.findFile,
    listFiles: reads.listFiles,
    async deleteFile(applicationId, fileId, now, actor) {
      return d.transaction(async (tx) => {
        const file = await lockFile(d, tx, ofApplication(files, applicationId, fileId));
        if (file === null) return null;
        const held = await tx.select({ stagingKey: jobs.stagingKey, outputKey: jobs.outputKey }).from(jobs).where(eq(jobs.fileId, file.id));
        // The file's jobs go with it (ON DELETE CASCADE).
        await tx.delete(files).where(eq(files.id, file.id));
        await recordEvents(tx, actor, [fileEvent('file.deleted', file)], now);
        const keys = [...(file.state.stored ? [file.state.stored.blobKey] : []), ...held.flatMap((j) => [j.stagingKey, j.outputKey])];
        return [...new Set(keys)];
      });
    },
    async referencedBlobKeys() {
      // One snapshot: a completing job moves its key from `jobs` to `files` (docs/architecture.md, "Persistence notes").
      return d.snapshot(async (tx) => {
        const keys = new Set<string>();
        for (const f of await tx.select({ key: files.storedBlobKey }).from(files).where(isNotNull(files.storedBlobKey))) {
          if (f.key !== null) keys.add(f.key);
        }
        for (const j of await tx.select({ stagingKey: jobs.stagingKey }).from(jobs)) keys.add(j.stagingKey);
        return keys;
      });
    },
  };
}
