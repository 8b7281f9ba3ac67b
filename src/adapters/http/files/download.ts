import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../../application/deps.js';
import type { FileRecord } from '../../../application/records.js';
import { DomainError } from '../../../domain/errors.js';
import { fileNotFound } from '../../../domain/files.js';
import { parseByteRange } from './byte-range.js';
import { header } from '../request-parts.js';

/** RFC 6266 Content-Disposition from a file name that is pure metadata: the last path segment,
 * control and quoting characters dropped for the ASCII fallback, the full name percent-encoded in
 * filename*. */
export function contentDisposition(name: string): string {
  const base = name.split(/[/\\]/).pop() || 'download';
  // Control characters (C0, C1) and the bidi overrides that disguise extensions go entirely.
  const visible = base.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '') || 'download';
  const ascii =
    visible
      .replace(/[^\x20-\x7e]/g, '_')
      .replace(/["\\%;]/g, '_')
      .slice(0, 200) || 'download';
  const encoded = encodeURIComponent(visible).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Streams a file's stored bytes (encrypted ones as stored): Content-Length, a strong ETag of the
 * stored bytes, Range (206/416) and If-None-Match (304). */
export async function sendFile(deps: Deps, request: FastifyRequest, reply: FastifyReply, file: FileRecord): Promise<FastifyReply> {
  const stored = file.state.stored;
  if (stored === null) throw fileNotFound();
  const size = stored.storedSizeBytes;
  const etag = `"${stored.storedSha256}"`;
  reply
    .header('accept-ranges', 'bytes')
    .header('etag', etag)
    .header('x-content-type-options', 'nosniff')
    .header('content-disposition', contentDisposition(file.name))
    .header('cache-control', 'private, no-cache');
  const ifNoneMatch = header(request, 'if-none-match');
  if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((t) => t.trim() === etag || t.trim() === '*')) {
    return reply.code(304).send();
  }
  const ifRange = header(request, 'if-range');
  const range = ifRange === undefined || ifRange === etag ? parseByteRange(header(request, 'range'), size) : null;
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${size}`);
    throw new DomainError('RANGE_NOT_SATISFIABLE', 'the requested range is outside the file');
  }
  const body = await deps.blobs.read(stored.blobKey, range ?? undefined);
  if (body === null) throw fileNotFound();
  reply.type('application/octet-stream');
  if (range === null) return reply.code(200).header('content-length', String(size)).send(body);
  return reply
    .code(206)
    .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
    .header('content-length', String(range.end - range.start + 1))
    .send(body);
}
