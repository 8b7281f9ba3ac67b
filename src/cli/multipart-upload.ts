// A multipart/form-data body streamed from a file on disk: the text fields, then the file part
// read chunk by chunk, so an upload never holds the file in memory. Its exact length is known
// up front (sent as Content-Length), and the file's sha256 is computed on the way.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';

/** Called as file bytes are read for sending: bytes so far, of total. */
export type UploadProgress = (sent: number, total: number) => void;

export interface MultipartUpload {
  body: Readable;
  contentType: string;
  /** Bytes of the whole body. */
  length: number;
  /** Resolves once the whole file has been read into the body. */
  sha256: Promise<string>;
}

/** A quoted-string for Content-Disposition: no quotes, backslashes or line breaks. */
const quoted = (value: string) => `"${value.replace(/["\\\r\n]/g, '_')}"`;

export async function multipartUpload(path: string, fields: Record<string, string>, progress?: UploadProgress): Promise<MultipartUpload> {
  const size = (await stat(path)).size;
  const boundary = `----gatehouse-cli-${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    Object.entries(fields)
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(name)}\r\n\r\n${value}\r\n`)
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename=${quoted(basename(path))}\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  let settle: { resolve: (hex: string) => void; reject: (error: Error) => void } = { resolve: () => {}, reject: () => {} };
  const sha256 = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  sha256.catch(() => {}); // the upload itself reports the failure

  async function* parts(): AsyncGenerator<Buffer> {
    yield head;
    const hash = createHash('sha256');
    let sent = 0;
    progress?.(0, size);
    try {
      for await (const chunk of createReadStream(path)) {
        hash.update(chunk as Buffer);
        sent += (chunk as Buffer).length;
        progress?.(sent, size);
        yield chunk as Buffer;
      }
    } catch (error) {
      settle.reject(error as Error);
      throw error;
    }
    // The file changed size while being sent: Content-Length would not hold.
    if (sent !== size) {
      const error = new Error(`${path} changed size while being uploaded (${size} bytes, then ${sent})`);
      settle.reject(error);
      throw error;
    }
    settle.resolve(hash.digest('hex'));
    yield tail;
  }

  return {
    body: Readable.from(parts(), { objectMode: false }),
    contentType: `multipart/form-data; boundary=${boundary}`,
    length: head.length + size + tail.length,
    sha256,
  };
}
