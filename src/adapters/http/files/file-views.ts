import type { FileRecord } from '../../../application/records.js';
import { storageStatus } from '../../../domain/files.js';
import { toIso } from '../../../domain/time.js';
import type { Static } from 'typebox';
import type { File } from '../wire-schemas.js';

/** The File object (docs/api.md, API reference). While PENDING, size_bytes and storage_path are null
 * (as the spec shows) even when previous contents are still being served. */
export function fileJson(f: FileRecord): Static<typeof File> {
  const pending = f.state.processingStatus === 'PENDING';
  const stored = pending ? null : f.state.stored;
  return {
    id: f.id,
    application_id: f.applicationId,
    name: f.name,
    is_public: f.isPublic,
    processing_status: f.state.processingStatus,
    storage_status: storageStatus(f.state),
    mime_type: f.mimeType,
    size_bytes: stored?.sizeBytes ?? null,
    storage_path: stored?.blobKey ?? null,
    original_filename: f.originalFilename,
    store_encrypted: f.storeEncrypted,
    source: f.source,
    created_at: toIso(f.createdAt),
    sha256: stored?.sha256 ?? null,
    processing_error: f.state.processingError,
    updated_at: toIso(f.updatedAt),
  };
}
