// Multipart uploads and file polling, the way a CI pipeline drives the admin API.
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './test-app.js';

export interface FilePart {
  content: Buffer;
  filename?: string;
  type?: string;
}

/** A multipart/form-data body; parts in the order given (a file may come before its fields). */
export function multipartBody(parts: Array<[string, string | FilePart]>): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----gatehouse${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of parts) {
    if (typeof value === 'string') {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    } else {
      const filename = (value.filename ?? 'build.bin').replace(/"/g, '%22');
      chunks.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${value.type ?? 'application/octet-stream'}\r\n\r\n`),
        value.content,
        Buffer.from('\r\n'),
      );
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export interface UploadFields {
  name?: string;
  is_public?: string;
  store_encrypted?: string;
}

/** An upload with the usual fields (name, is_public, store_encrypted) and a file. */
export function upload(t: TestApp, method: 'POST' | 'PUT', url: string, authorization: string, fields: UploadFields, file: FilePart | null, fileFirst = false): Promise<LightMyRequestResponse> {
  const fieldParts = Object.entries(fields).filter(([, v]) => v !== undefined) as Array<[string, string]>;
  const fileParts: Array<[string, FilePart]> = file === null ? [] : [['file', file]];
  const { payload, headers } = multipartBody(fileFirst ? [...fileParts, ...fieldParts] : [...fieldParts, ...fileParts]);
  return t.inject({ method, url, headers: { ...headers, authorization }, payload });
}

/** Runs every queued processing job. */
export const processAll = (t: TestApp) => t.processor.drain();
