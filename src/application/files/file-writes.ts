import type { Actor } from '../events/actor.js';
import { acceptFileName, acceptUpload, fileNotFound, type FileSource } from '../../domain/files.js';
import type { Deps } from '../deps.js';
import type { FileMetadataPatch, FileStore } from '../ports/file-store.js';
import type { ApplicationRecord, FileRecord, JobRecord } from '../records.js';
import { discardBlobs, type StagedUpload } from './uploads.js';

/** What a write says about the file beside its contents. */
export interface FileFields {
  isPublic: boolean;
  storeEncrypted: boolean;
  source: FileSource;
}

export interface UploadDescription {
  mimeType: string;
  originalFilename: string;
}

function newJob(deps: Pick<Deps, 'clock' | 'ids'>, app: ApplicationRecord, fileId: string, staged: StagedUpload, encrypt: boolean, id = deps.ids.uuid()): JobRecord {
  return {
    id,
    applicationId: app.id,
    fileId,
    stagingKey: staged.key,
    // Each claim publishes under `${outputKey}-${attempts}` (see file-processor).
    outputKey: `files/${app.id}/${id}`,
    encrypt,
    attempts: 0,
    runAfter: deps.clock.now(),
    leaseUntil: null,
    leaseOwner: null,
    createdAt: deps.clock.now(),
  };
}

/** Runs a write that takes over a staged upload; if the write fails, the upload is discarded. */
async function consuming<T>(deps: Pick<Deps, 'blobs'>, staged: StagedUpload | null, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (staged !== null) await discardBlobs(deps, [staged.key]);
    throw e;
  }
}

function newFile(deps: Pick<Deps, 'clock' | 'ids'>, app: ApplicationRecord, name: string, fields: FileFields, upload: UploadDescription, jobId: string): FileRecord {
  const now = deps.clock.now();
  return {
    id: deps.ids.uuid(),
    applicationId: app.id,
    name,
    isPublic: fields.isPublic,
    mimeType: upload.mimeType,
    originalFilename: upload.originalFilename,
    storeEncrypted: fields.storeEncrypted,
    source: fields.source,
    state: acceptUpload(null, jobId),
    createdAt: now,
    updatedAt: now,
  };
}

/** A new file record and the job that will process its staged upload. */
function pendingFile(deps: Pick<Deps, 'clock' | 'ids'>, app: ApplicationRecord, name: string, fields: FileFields, upload: UploadDescription, staged: StagedUpload) {
  const jobId = deps.ids.uuid();
  const file = newFile(deps, app, acceptFileName(name), fields, upload, jobId);
  return { file, job: newJob(deps, app, file.id, staged, fields.storeEncrypted, jobId) };
}

/** What a write of a file uses: the new job and file, the staged upload, the store, and the bell that wakes a worker. */
type FileWriteDeps = Pick<Deps, 'blobs' | 'clock' | 'files' | 'ids'> & { store: FileStore };

/** POST /files: a new file, PENDING until its contents are processed. */
export async function createFile(deps: FileWriteDeps, app: ApplicationRecord, name: string, fields: FileFields, upload: UploadDescription, staged: StagedUpload): Promise<FileRecord> {
  return consuming(deps, staged, async () => {
    const { file, job } = pendingFile(deps, app, name, fields, upload, staged);
    await deps.store.createFile(file, job);
    deps.files.jobQueued.ring();
    return file;
  });
}

/** PUT /files/by-name/{name}: creates the file, or replaces the contents of the one with that name. */
export async function upsertFileByName(
  deps: FileWriteDeps,
  app: ApplicationRecord,
  name: string,
  fields: FileFields,
  upload: UploadDescription,
  staged: StagedUpload,
): Promise<{ file: FileRecord; created: boolean }> {
  return consuming(deps, staged, async () => {
    const { file, job } = pendingFile(deps, app, name, fields, upload, staged);
    const result = await deps.store.upsertFileByName(file, job);
    await discardBlobs(deps, result.discard);
    deps.files.jobQueued.ring();
    return { file: result.file, created: result.created };
  });
}

/** PUT /files/{file_id}: new metadata, and new contents when an upload came with it. */
export async function updateFile(
  deps: FileWriteDeps,
  app: ApplicationRecord,
  fileId: string,
  name: string,
  fields: FileFields,
  upload: (UploadDescription & { staged: StagedUpload }) | null,
): Promise<FileRecord> {
  return consuming(deps, upload?.staged ?? null, async () => {
    const patch: FileMetadataPatch = { name: acceptFileName(name), ...fields, updatedAt: deps.clock.now() };
    if (upload === null) {
      const file = await deps.store.updateFileMetadata(app.id, fileId, patch);
      if (file === null) throw fileNotFound();
      return file;
    }
    const job = newJob(deps, app, fileId, upload.staged, fields.storeEncrypted);
    const result = await deps.store.replaceFileContents(app.id, fileId, { ...patch, mimeType: upload.mimeType, originalFilename: upload.originalFilename }, job);
    if (result === null) throw fileNotFound();
    await discardBlobs(deps, result.discard);
    deps.files.jobQueued.ring();
    return result.file;
  });
}

/** Deletes the row first, then the bytes: a crash in between leaves only orphans, which are swept. */
export async function deleteFile(deps: Pick<Deps, 'blobs' | 'clock'> & { store: FileStore }, app: ApplicationRecord, fileId: string, actor: Actor): Promise<void> {
  const keys = await deps.store.deleteFile(app.id, fileId, deps.clock.now(), actor);
  if (keys === null) throw fileNotFound();
  await discardBlobs(deps, keys);
}

export async function getFile(deps: { store: FileStore }, app: ApplicationRecord, fileId: string): Promise<FileRecord> {
  const file = await deps.store.findFile(app.id, fileId);
  if (file === null) throw fileNotFound();
  return file;
}

export const listFiles = (deps: { store: FileStore }, app: ApplicationRecord): Promise<FileRecord[]> => deps.store.listFiles(app.id);
