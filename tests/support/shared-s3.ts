// One S3-protocol server per test file, started on first use and closed after the file.
import { afterAll } from 'vitest';
import { startS3Server, type S3TestServer } from './s3-server.js';

let server: Promise<S3TestServer> | null = null;

export function sharedS3Server(): Promise<S3TestServer> {
  server ??= startS3Server();
  return server;
}

afterAll(async () => {
  if (server !== null) await (await server).close();
  server = null;
});
