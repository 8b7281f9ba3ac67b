// Files of an application and the jobs that bring their contents in. Every write of contents runs
// in one BEGIN IMMEDIATE transaction that reads the file, decides with the domain (acceptUpload)
// and writes the file and its job together, so concurrent uploads of one file serialise.
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { FileMetadataPatch, FileRecord, FileStore, JobRecord } from '../../../application/ports.js';
import { DomainError } from '../../../domain/errors.js';
import { acceptUpload } from '../../../domain/files.js';
import { type Connection, type Db, isUniqueViolation } from './db.js';
import { fileRow, stateColumns, toFile, metadataColumns } from '../files-row-mappers.js';
import { files, jobs } from './schema.js';

/** Runs a write of `files`, reporting a clash of (application, name) as FILE_NAME_TAKEN. */
function guardName<T>(write: () => T): T {
  try {
    return write();
  } catch (e) {
    if (isUniqueViolation(e, 'files.name')) throw new DomainError('FILE_NAME_TAKEN', 'a file with this name already exists');
    throw e;
  }
}

export function findFileIn(tx: Db, applicationId: string, fileId: string): FileRecord | null {
  const row = tx
    .select()
    .from(files)
    .where(and(eq(files.applicationId, applicationId), eq(files.id, fileId)))
    .get();
  return row ? toFile(row) : null;
}

/** Unscoped: for the job queue, whose jobs name their file. */
export function findFileById(tx: Db, fileId: string): FileRecord | null {
  const row = tx.select().from(files).where(eq(files.id, fileId)).get();
  return row ? toFile(row) : null;
}

function findByName(tx: Db, applicationId: string, name: string): FileRecord | null {
  const row = tx
    .select()
    .from(files)
    .where(and(eq(files.applicationId, applicationId), eq(files.name, name)))
    .get();
  return row ? toFile(row) : null;
}

/** The job is bound to the file it is inserted for: the file's id and application win. */
function insertJob(tx: Db, file: FileRecord, job: JobRecord): void {
  tx.insert(jobs)
    .values({ ...job, fileId: file.id, applicationId: file.applicationId, seq: sql`(select coalesce(max(${jobs.seq}), 0) + 1 from ${jobs})` })
    .run();
}

/** A new file: PENDING on its job, nothing stored (acceptUpload of no previous state). */
function createIn(tx: Db, file: FileRecord, job: JobRecord): FileRecord {
  const record: FileRecord = { ...file, state: acceptUpload(null, job.id) };
  guardName(() => tx.insert(files).values(fileRow(record)).run());
  insertJob(tx, record, job);
  return record;
}

/**
 * New contents for `file`: PENDING on the new job, previous stored contents kept. The job it
 * awaited until now is superseded: its row goes, and its blobs are returned for deletion.
 */
function replaceIn(tx: Db, file: FileRecord, patch: FileMetadataPatch, job: JobRecord): { file: FileRecord; discard: string[] } {
  const state = acceptUpload(file.state, job.id);
  const discard: string[] = [];
  if (file.state.pendingJobId !== null) {
    const dropped = tx
      .delete(jobs)
      .where(and(eq(jobs.id, file.state.pendingJobId), eq(jobs.fileId, file.id)))
      .returning({ stagingKey: jobs.stagingKey, outputKey: jobs.outputKey })
      .all();
    for (const d of dropped) discard.push(d.stagingKey, d.outputKey);
  }
  const row = guardName(() =>
    tx
      .update(files)
      .set({ ...metadataColumns(patch), ...stateColumns(state) })
      .where(eq(files.id, file.id))
      .returning()
      .get(),
  );
  if (row === undefined) throw new Error(`file ${file.id} vanished inside its transaction`);
  const updated = toFile(row);
  insertJob(tx, updated, job);
  return { file: updated, discard };
}

export function fileStore({ db, reads, immediate }: Connection): FileStore {
  return {
    async createFile(file, job) {
      immediate((tx) => {
        createIn(tx, file, job);
      });
    },

    async replaceFileContents(applicationId, fileId, patch, job) {
      return immediate((tx) => {
        const file = findFileIn(tx, applicationId, fileId);
        return file === null ? null : replaceIn(tx, file, patch, job);
      });
    },

    async upsertFileByName(file, job) {
      return immediate((tx) => {
        const existing = findByName(tx, file.applicationId, file.name);
        if (existing === null) return { file: createIn(tx, file, job), created: true, discard: [] };
        const patch: FileMetadataPatch = {
          isPublic: file.isPublic,
          storeEncrypted: file.storeEncrypted,
          source: file.source,
          updatedAt: file.updatedAt,
          mimeType: file.mimeType,
          originalFilename: file.originalFilename,
        };
        return { ...replaceIn(tx, existing, patch, job), created: false };
      });
    },

    async updateFileMetadata(applicationId, fileId, patch) {
      // One UPDATE: nothing is read before it, so no transaction is needed.
      const row = guardName(() =>
        db
          .update(files)
          .set(metadataColumns(patch))
          .where(and(eq(files.applicationId, applicationId), eq(files.id, fileId)))
          .returning()
          .get(),
      );
      return row ? toFile(row) : null;
    },

    async findFile(applicationId, fileId) {
      const row = reads.fileById.get({ applicationId, id: fileId });
      return row ? toFile(row) : null;
    },

    async listFiles(applicationId) {
      return reads.filesOf.all({ applicationId }).map(toFile);
    },

    async deleteFile(applicationId, fileId) {
      return immediate((tx) => {
        const file = findFileIn(tx, applicationId, fileId);
        if (file === null) return null;
        const held = tx.select({ stagingKey: jobs.stagingKey, outputKey: jobs.outputKey }).from(jobs).where(eq(jobs.fileId, file.id)).all();
        // The file's jobs go with it (ON DELETE CASCADE).
        tx.delete(files).where(eq(files.id, file.id)).run();
        const keys = [...(file.state.stored ? [file.state.stored.blobKey] : []), ...held.flatMap((j) => [j.stagingKey, j.outputKey])];
        return [...new Set(keys)];
      });
    },

    async referencedBlobKeys() {
      // One read transaction: a job completing between the two reads moves its output key from
      // `jobs` to `files`, and separate reads could see it in neither.
      return db.transaction(
        (tx) => {
          const keys = new Set<string>();
          for (const f of tx.select({ key: files.storedBlobKey }).from(files).where(isNotNull(files.storedBlobKey)).all()) {
            if (f.key !== null) keys.add(f.key);
          }
          for (const j of tx.select({ stagingKey: jobs.stagingKey, outputKey: jobs.outputKey }).from(jobs).all()) {
            keys.add(j.stagingKey).add(j.outputKey);
          }
          return keys;
        },
        { behavior: 'deferred' },
      );
    },
  };
}
