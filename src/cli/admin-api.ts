// The admin API (/api/admin) as the CI commands call it: fetch only, never the database. Errors
// come back typed (src/client/errors.ts); an unreachable server becomes one clear CliError.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { errorFromResponse } from '../client/errors.js';
import { CliError, EXIT } from './cli-errors.js';
import { multipartUpload, type UploadProgress } from './multipart-upload.js';

/** The File object of the admin API (the fields the commands read). */
export interface AdminFile {
  id: string;
  name: string;
  is_public: boolean;
  processing_status: 'PENDING' | 'COMPLETED' | 'FAILED';
  storage_status: string;
  size_bytes: number | null;
  store_encrypted: boolean;
  sha256: string | null;
  processing_error: string | null;
  created_at: string;
  updated_at?: string;
}

export interface UpsertResult {
  file: AdminFile;
  /** true when the name was new (201), false when its contents were replaced (200). */
  created: boolean;
  /** sha256 of the bytes sent, to recognise this upload once processed. */
  sha256: string;
}

export function createAdminApi(baseUrl: string, adminKey: string) {
  const root = `${baseUrl.replace(/\/+$/, '')}/api/admin`;
  const auth = { authorization: `Bearer ${adminKey}` };

  async function call(path: string, init: RequestInit = {}): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${root}${path}`, { ...init, headers: { ...auth, ...(init.headers as Record<string, string> | undefined) } });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
      throw new CliError(EXIT.FAILURE, `cannot reach ${baseUrl}: ${cause}`);
    }
    if (!response.ok) throw await errorFromResponse(response);
    return response;
  }

  const json = async <T>(path: string, init?: RequestInit) => (await (await call(path, init)).json()) as T;

  return {
    listFiles: () => json<AdminFile[]>('/files'),
    getFile: (id: string) => json<AdminFile>(`/files/${encodeURIComponent(id)}`),
    deleteFile: async (id: string) => void (await call(`/files/${encodeURIComponent(id)}`, { method: 'DELETE' })),
    user: (usernameOrCode: string) => json<Record<string, unknown>>(`/user/${encodeURIComponent(usernameOrCode)}`),
    license: (code: string) => json<Record<string, unknown>>(`/license/${encodeURIComponent(code)}`),

    /** The stored bytes (encrypted files as stored). */
    async download(id: string): Promise<Readable> {
      const response = await call(`/files/${encodeURIComponent(id)}/download`);
      return Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    },

    /** PUT /files/by-name/{name}: creates or replaces, streaming the file from disk. */
    async upsertByName(path: string, name: string, flags: { isPublic: boolean; encrypted: boolean }, progress?: UploadProgress): Promise<UpsertResult> {
      const upload = await multipartUpload(path, { is_public: String(flags.isPublic), store_encrypted: String(flags.encrypted) }, progress);
      const response = await streamRequest(
        `${root}/files/by-name/${encodeURIComponent(name)}`,
        {
          ...auth,
          'content-type': upload.contentType,
          'content-length': String(upload.length),
        },
        upload.body,
      ).catch((error: Error) => {
        throw new CliError(EXIT.FAILURE, `cannot reach ${baseUrl}: ${error.message}`);
      });
      if (!response.ok) throw await errorFromResponse(response);
      const file = (await response.json()) as AdminFile;
      return { file, created: response.status === 201, sha256: await upload.sha256 };
    },
  };
}

/** A PUT whose body streams from `body` through node:http(s), not fetch: undici keeps the sent chunks
 * alive far longer, so a large push would hold far more memory (docs/performance-log.md, "figures from
 * comments"). The small JSON answer is handed back as a Response. */
function streamRequest(url: string, headers: Record<string, string>, body: Readable): Promise<Response> {
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'PUT', headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('error', reject);
      res.on('end', () => {
        const responseHeaders = new Headers();
        for (const [key, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(key, value);
        resolve(new Response(Buffer.concat(parts), { status: res.statusCode ?? 500, headers: responseHeaders }));
      });
    });
    req.on('error', reject);
    // An answer before the whole body was sent (401, 413) ends the request: stop reading the file.
    pipeline(body, req).catch((error: Error) => {
      body.destroy();
      reject(error);
    });
  });
}

export type AdminApi = ReturnType<typeof createAdminApi>;
