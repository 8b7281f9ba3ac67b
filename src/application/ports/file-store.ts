// Files: their metadata and state, each write of contents together with its job.
// Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { Actor } from '../events/actor.js';
import type { FileSource } from '../../domain/files.js';
import type { Instant } from '../../domain/time.js';
import type { FileRecord, JobRecord } from '../records.js';

/** What a write of contents changes beside them. */
export interface FileMetadataPatch {
  name?: string;
  isPublic: boolean;
  storeEncrypted: boolean;
  source: FileSource;
  updatedAt: Instant;
  /** With new contents only. */
  mimeType?: string;
  originalFilename?: string;
}

export interface FileStore {
  /** ATOMIC: the file row and its job. FILE_NAME_TAKEN when the name is used in the application. */
  createFile(file: FileRecord, job: JobRecord): Promise<void>;
  /** ATOMIC: new contents for an existing file (acceptUpload of the domain) with its job and
   * metadata; FILE_NAME_TAKEN on a clash of a new name. A previous job still awaited is dropped;
   * its staging key is returned for deletion. Null when there is no such file. */
  replaceFileContents(applicationId: string, fileId: string, patch: FileMetadataPatch, job: JobRecord): Promise<{ file: FileRecord; discard: string[] } | null>;
  /** ATOMIC: creates the file under `file.name` or, when the name exists, replaces its contents
   * (keeping its id). Returns which it did. */
  upsertFileByName(file: FileRecord, job: JobRecord): Promise<{ file: FileRecord; created: boolean; discard: string[] }>;
  /** Metadata only; FILE_NAME_TAKEN on a clash. Null when there is no such file. */
  updateFileMetadata(applicationId: string, fileId: string, patch: FileMetadataPatch): Promise<FileRecord | null>;
  findFile(applicationId: string, fileId: string): Promise<FileRecord | null>;
  /** Oldest first. */
  listFiles(applicationId: string): Promise<FileRecord[]>;
  /** ATOMIC: removes the file and its jobs; returns every blob key they held, or null when none. */
  deleteFile(applicationId: string, fileId: string, now: Instant, actor: Actor): Promise<string[] | null>;
  /** The blobs rows need: each file's stored contents and each job's staged upload. What an orphan
   * sweep must keep and a backup must hold. (A job's output key only names where its claims
   * publish, `<outputKey>-<attempts>`; no blob has that key.) */
  referencedBlobKeys(): Promise<Set<string>>;
}
