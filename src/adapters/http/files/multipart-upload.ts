import type {} from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../../application/deps.js';
import { discardBlobs, stageUpload, type StagedUpload } from '../../../application/files/uploads.js';
import { acceptMimeType, originalFilename } from '../../../domain/files.js';
import { DomainError, validationError } from '../../../domain/errors.js';

/** A multipart form as read: its text fields, and its one file already streamed to staging. */
export interface UploadForm {
  fields: Map<string, string>;
  upload: { staged: StagedUpload; mimeType: string; originalFilename: string } | null;
}

const ACCEPTED_FIELDS = new Set(['name', 'is_public', 'store_encrypted']);

/** Reads the form in the order it arrives, streaming the file part straight to staging storage
 * (never into memory). Whatever goes wrong after the file was staged, the staged copy is removed. */
export async function readUploadForm(deps: Deps, request: FastifyRequest): Promise<UploadForm> {
  if (!request.isMultipart()) throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'uploads are multipart/form-data');
  const fields = new Map<string, string>();
  let upload: UploadForm['upload'] = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') throw validationError(part.fieldname, 'is not an accepted field');
        if (upload !== null) throw validationError('file', 'only one file per request');
        const staged = await stageUpload(deps, part.file);
        upload = { staged, mimeType: acceptMimeType(part.mimetype), originalFilename: originalFilename(part.filename) };
        // busboy stops at its own limit by truncating: a truncated file is too large, not done.
        if (part.file.truncated) throw new DomainError('PAYLOAD_TOO_LARGE', `the file is larger than ${deps.files.maxUploadBytes} bytes`);
      } else {
        if (!ACCEPTED_FIELDS.has(part.fieldname)) throw validationError(part.fieldname, 'is not an accepted field');
        if (fields.has(part.fieldname)) throw validationError(part.fieldname, 'is given twice');
        if (part.valueTruncated) throw validationError(part.fieldname, 'is too long');
        fields.set(part.fieldname, String(part.value));
      }
    }
  } catch (error) {
    if (upload !== null) await discardBlobs(deps, [upload.staged.key]);
    throw translateMultipartError(error);
  }
  return { fields, upload };
}

/** @fastify/multipart's own errors, as our codes. */
function translateMultipartError(error: unknown): unknown {
  const code = (error as { code?: string })?.code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new DomainError('PAYLOAD_TOO_LARGE', 'the file is too large');
    case 'FST_FILES_LIMIT':
      return validationError('file', 'only one file per request');
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return new DomainError('VALIDATION_FAILED', 'too many form fields');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new DomainError('UNSUPPORTED_MEDIA_TYPE', 'uploads are multipart/form-data');
    default:
      // Malformed multipart bodies (busboy's errors) are the client's.
      if (error instanceof Error && !(error instanceof DomainError) && /multipart|boundary|part|unexpected end/i.test(error.message)) {
        return new DomainError('MALFORMED_REQUEST', 'malformed multipart body');
      }
      return error;
  }
}

/** A required form boolean: exactly "true" or "false" (no coercion of other spellings). */
export function formBoolean(fields: Map<string, string>, name: string): boolean {
  const raw = fields.get(name);
  if (raw === undefined) throw validationError(name, 'is required');
  if (raw !== 'true' && raw !== 'false') throw validationError(name, 'must be true or false');
  return raw === 'true';
}

export function formText(fields: Map<string, string>, name: string): string {
  const raw = fields.get(name);
  if (raw === undefined) throw validationError(name, 'is required');
  return raw;
}
