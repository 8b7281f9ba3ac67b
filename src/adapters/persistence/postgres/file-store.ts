// Files of an application and the jobs that bring their contents in. Every write of contents runs
// in one transaction that locks the file's row, decides with the domain (acceptUpload) and writes
// the file and its job together, so concurrent uploads of one file serialise.
import { and, eq, isNotNull } from 'drizzle-orm';
import type { FileMetadataPatch, FileRecord, FileStore, JobRecord } from '../../../application/ports.js';
import { DomainError } from '../../../domain/errors.js';
import { acceptUpload } from '../../../domain/files.js';
import { type Connection, type Db, isUniqueViolation } from './db.js';
import { fileRow, stateColumns, toFile, metadataColumns } from '../files-row-mappers.js';
import type { HotReads } from './hot-reads.js';
import { files, jobs } from './schema.js';

/** Runs a write of `files`, reporting a clash of (application, name) as FILE_NAME_TAKEN. */
async function guardName<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (isUniqueViolation(e, 'files_app_name_uq')) throw new DomainError('FILE_NAME_TAKEN', 'a file with this name already exists');
    throw e;
  }
}

/** The file of the application; with `lock`, its row is locked until the transaction ends. */
export async function findFileIn(tx: Db, applicationId: string, fileId: string, lock = false): Promise<FileRecord | null> {
  const query = tx
    .select()
    .from(files)
    .where(and(eq(files.applicationId, applicationId), eq(files.id, fileId)));
  const [row] = lock ? await query.for('update') : await query;
  return row ? toFile(row) : null;
}

/** Unscoped and locked: for the job queue, whose jobs name their file. */
export async function lockFileById(tx: Db, fileId: string): Promise<FileRecord | null> {
  const [row] = await tx.select().from(files).where(eq(files.id, fileId)).for('update');
  return row ? toFile(row) : null;
}

async function lockByName(tx: Db, applicationId: string, name: string): Promise<FileRecord | null> {
  const [row] = await tx
    .select()
    .from(files)
    .where(and(eq(files.applicationId, applicationId), eq(files.name, name)))
    .for('update');
  return row ? toFile(row) : null;
}

/** The job is bound to the file it is inserted for: the file's id and application win. */
async function insertJob(tx: Db, file: FileRecord, job: JobRecord): Promise<void> {
  await tx.insert(jobs).values({ ...job, fileId: file.id, applicationId: file.applicationId });
}

/** A new file: PENDING on its job, nothing stored (acceptUpload of no previous state). */
async function createIn(tx: Db, file: FileRecord, job: JobRecord): Promise<FileRecord> {
  const record: FileRecord = { ...file, state: acceptUpload(null, job.id) };
  await guardName(() => tx.insert(files).values(fileRow(record)));
  await insertJob(tx, record, job);
  return record;
}

/**
 * New contents for `file`, whose row the caller has locked: PENDING on the new job, previous
 * stored contents kept. The job it awaited until now is superseded: its row goes, and its blobs
 * are returned for deletion.
 */
async function replaceIn(tx: Db, file: FileRecord, patch: FileMetadataPatch, job: JobRecord): Promise<{ file: FileRecord; discard: string[] }> {
  const state = acceptUpload(file.state, job.id);
  const discard: string[] = [];
  if (file.state.pendingJobId !== null) {
    const dropped = await tx
      .delete(jobs)
      .where(and(eq(jobs.id, file.state.pendingJobId), eq(jobs.fileId, file.id)))
      .returning({ stagingKey: jobs.stagingKey, outputKey: jobs.outputKey });
    for (const d of dropped) discard.push(d.stagingKey, d.outputKey);
  }
  const [row] = await guardName(() =>
    tx
      .update(files)
      .set({ ...metadataColumns(patch), ...stateColumns(state) })
      .where(eq(files.id, file.id))
      .returning(),
  );
  if (row === undefined) throw new Error(`file ${file.id} vanished inside its transaction`);
  const updated = toFile(row);
  await insertJob(tx, updated, job);
  return { file: updated, discard };
}

export function fileStore({ db, transaction, snapshot }: Connection, reads: HotReads): FileStore {
  return {
    async createFile(file, job) {
      await transaction(async (tx) => {
        await createIn(tx, file, job);
      });
    },

    async replaceFileContents(applicationId, fileId, patch, job) {
      return transaction(async (tx) => {
        const file = await findFileIn(tx, applicationId, fileId, true);
        return file === null ? null : replaceIn(tx, file, patch, job);
      });
    },

    async upsertFileByName(file, job) {
      return transaction(async (tx) => {
        const patch: FileMetadataPatch = {
          isPublic: file.isPublic,
          storeEncrypted: file.storeEncrypted,
          source: file.source,
          updatedAt: file.updatedAt,
          mimeType: file.mimeType,
          originalFilename: file.originalFilename,
        };
        const existing = await lockByName(tx, file.applicationId, file.name);
        if (existing !== null) return { ...(await replaceIn(tx, existing, patch, job)), created: false };
        try {
          // A savepoint: when another transaction creates the name first, the clash undoes only
          // this attempt, and the file it created is then replaced like any existing one.
          return { file: await tx.transaction((sp) => createIn(sp, file, job)), created: true, discard: [] };
        } catch (e) {
          if (!(e instanceof DomainError && e.code === 'FILE_NAME_TAKEN')) throw e;
        }
        const created = await lockByName(tx, file.applicationId, file.name);
        if (created === null) throw new DomainError('FILE_NAME_TAKEN', 'a file with this name already exists');
        return { ...(await replaceIn(tx, created, patch, job)), created: false };
      });
    },

    async updateFileMetadata(applicationId, fileId, patch) {
      // One UPDATE: nothing is read before it, so no transaction is needed.
      const [row] = await guardName(() =>
        db
          .update(files)
          .set(metadataColumns(patch))
          .where(and(eq(files.applicationId, applicationId), eq(files.id, fileId)))
          .returning(),
      );
      return row ? toFile(row) : null;
    },

    findFile: reads.findFile,

    listFiles: reads.listFiles,

    async deleteFile(applicationId, fileId) {
      return transaction(async (tx) => {
        const file = await findFileIn(tx, applicationId, fileId, true);
        if (file === null) return null;
        const held = await tx.select({ stagingKey: jobs.stagingKey, outputKey: jobs.outputKey }).from(jobs).where(eq(jobs.fileId, file.id));
        // The file's jobs go with it (ON DELETE CASCADE).
        await tx.delete(files).where(eq(files.id, file.id));
        const keys = [...(file.state.stored ? [file.state.stored.blobKey] : []), ...held.flatMap((j) => [j.stagingKey, j.outputKey])];
        return [...new Set(keys)];
      });
    },

    async referencedBlobKeys() {
      // One snapshot: a job completing between the two reads moves its output key from `jobs` to
      // `files`, and reads of different moments could see it in neither.
      return snapshot(async (tx) => {
        const keys = new Set<string>();
        for (const f of await tx.select({ key: files.storedBlobKey }).from(files).where(isNotNull(files.storedBlobKey))) {
          if (f.key !== null) keys.add(f.key);
        }
        for (const j of await tx.select({ stagingKey: jobs.stagingKey, outputKey: jobs.outputKey }).from(jobs)) {
          keys.add(j.stagingKey).add(j.outputKey);
        }
        return keys;
      });
    },
  };
}
