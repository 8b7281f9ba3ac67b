// Rows of `files` and `jobs` to port records and back, for the shared store on either dialect
// (one table spec, tables.ts, so the same row types). A file's
// state is spread over columns: the processing columns, and the stored contents as six columns
// that are all set or all null.
import type { FileMetadataPatch } from '../../application/ports/file-store.js';
import type { FileRecord, JobRecord } from '../../application/records.js';
import type { FileSource, FileState, ProcessingStatus, StoredContents } from '../../domain/files.js';
import type { Tables } from './tables.js';

type FileRow = Tables['files']['$inferSelect'];
type JobRow = Tables['jobs']['$inferSelect'];

export function storedColumns(s: StoredContents | null) {
  return {
    storedBlobKey: s?.blobKey ?? null,
    sizeBytes: s?.sizeBytes ?? null,
    sha256: s?.sha256 ?? null,
    storedSizeBytes: s?.storedSizeBytes ?? null,
    storedSha256: s?.storedSha256 ?? null,
    storedEncrypted: s?.encrypted ?? null,
  };
}

export function stateColumns(s: FileState) {
  return {
    processingStatus: s.processingStatus,
    processingError: s.processingError,
    pendingJobId: s.pendingJobId,
    ...storedColumns(s.stored),
  };
}

export const fileRow = (f: FileRecord): FileRow => ({
  id: f.id,
  applicationId: f.applicationId,
  name: f.name,
  isPublic: f.isPublic,
  mimeType: f.mimeType,
  originalFilename: f.originalFilename,
  storeEncrypted: f.storeEncrypted,
  source: f.source,
  ...stateColumns(f.state),
  createdAt: f.createdAt,
  updatedAt: f.updatedAt,
});

function toStored(r: FileRow): StoredContents | null {
  if (r.storedBlobKey === null) return null;
  // The files_stored_together check keeps the six columns set together.
  if (r.sizeBytes === null || r.sha256 === null || r.storedSizeBytes === null || r.storedSha256 === null || r.storedEncrypted === null) {
    throw new Error(`files row ${r.id} holds partial stored contents`);
  }
  return {
    blobKey: r.storedBlobKey,
    sizeBytes: r.sizeBytes,
    sha256: r.sha256,
    storedSizeBytes: r.storedSizeBytes,
    storedSha256: r.storedSha256,
    encrypted: r.storedEncrypted,
  };
}

// Text columns holding enums are only ever written from typed records, so narrowing on read is safe.
export const toFile = (r: FileRow): FileRecord => ({
  id: r.id,
  applicationId: r.applicationId,
  name: r.name,
  isPublic: r.isPublic,
  mimeType: r.mimeType,
  originalFilename: r.originalFilename,
  storeEncrypted: r.storeEncrypted,
  source: r.source as FileSource,
  state: {
    processingStatus: r.processingStatus as ProcessingStatus,
    stored: toStored(r),
    pendingJobId: r.pendingJobId,
    processingError: r.processingError,
  },
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

// seq only orders claims; it is no part of the record.
export const toJob = ({ seq: _seq, ...r }: JobRow): JobRecord => r;

/** The columns a metadata patch writes: optional fields only when given. */
export function metadataColumns(p: FileMetadataPatch) {
  return {
    ...(p.name !== undefined ? { name: p.name } : {}),
    ...(p.mimeType !== undefined ? { mimeType: p.mimeType } : {}),
    ...(p.originalFilename !== undefined ? { originalFilename: p.originalFilename } : {}),
    isPublic: p.isPublic,
    storeEncrypted: p.storeEncrypted,
    source: p.source,
    updatedAt: p.updatedAt,
  };
}
