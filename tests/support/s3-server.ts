// A real S3-protocol server for tests: s3rver (an S3 emulator on Koa, storing in a folder), in this
// process, on 127.0.0.1 with an ephemeral port and its own temp folder. Requests go through the
// real SDK over HTTP with SigV4 signing, so the adapter is tested end to end, not against a mock.
//
// s3rver 3.7.1 is a development tool and falls short of S3 where the BlobStore contract looks, so
// startS3Server() brings it closer to S3 (each change is what S3 itself guarantees or offers):
// - PUT (and CompleteMultipartUpload, which goes through it) is atomic: bytes go to a temp file
//   beside the object, renamed over it once whole. s3rver wrote in place, so a GET in progress, or
//   two concurrent PUTs of one key, saw or made a mix of versions.
// - GET answers from the file it opened (size and bytes agree across an overwrite), `bytes=0-0`
//   is one byte (s3rver read `end || Infinity`), and any range of an empty object is 416
//   InvalidRange (s3rver sent a 206 announcing one byte and none, which the client saw as aborted).
// - DELETE prunes folders without failing when a concurrent delete or write got there first
//   (s3rver answered 500 to racing deletes under one folder).
// - ListObjects retries when a file vanishes while it walks the folder (s3rver answered 500).
// - ListObjectsV2 pages: s3rver made its continuation tokens with DES, which Node 17+ (OpenSSL 3)
//   refuses, so listing more than 1000 keys failed with a 500. ListObjectsV2 is answered here
//   from s3rver's store, with the last key (base64url) as the token.
// - AbortMultipartUpload (DELETE ?uploadId) and ListMultipartUploads (GET ?uploads) exist: s3rver
//   answered 405 and 501.
// - HEAD and GET of a key whose file name would be too long for the disk (a segment near 255
//   characters plus s3rver's suffix) answer 404, as for any object s3rver cannot hold, not 500.
//   Such an object still cannot be written.
// s3rver checks that the access key id is S3RVER but not SigV4 signatures (its V4 check is
// unimplemented), so a wrong secret goes unnoticed; the added routes run the same check.
// Every request is logged (`requests`), so a test can see what reached the server (a range, say),
// and failRequests() makes chosen requests fail, to test what a store does when S3 does.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, readFile, rename, rm, rmdir, stat, unlink, type FileHandle } from 'node:fs/promises';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CreateBucketCommand, ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3BlobStoreOptions } from '../../src/adapters/blob/s3-blob-store.js';

/** The key pair s3rver knows (it checks the key id; it does not verify SigV4 signatures). */
export const S3_TEST_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
export const S3_TEST_REGION = 'us-east-1';

export interface S3RequestRecord {
  method: string;
  /** Path-style: /bucket/key. */
  path: string;
  /** The raw query string, without '?'. */
  query: string;
  /** The Range request header, if any. */
  range: string | undefined;
  status: number;
  /** The response's Content-Length header, if any (none for errors). */
  contentLength: number | undefined;
}

export interface S3RequestMatch {
  method: string;
  /** Tested against the raw query string, e.g. /partNumber=/ for UploadPart. */
  query?: RegExp;
  /** Exactly /bucket/key. */
  path?: string;
}

export interface S3TestServer {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string;
  readonly port: number;
  /** s3rver's data folder (removed by close() unless it was given). */
  readonly directory: string;
  /** Requests answered so far, oldest first; clear with `requests.length = 0`. */
  readonly requests: S3RequestRecord[];
  /** Creates an empty bucket (a fresh unique name unless given) and returns its name. */
  createBucket(name?: string): Promise<string>;
  /** Options for createS3BlobStore against this server: path style, test credentials. */
  storeOptions(bucket: string, extra?: Partial<S3BlobStoreOptions>): S3BlobStoreOptions;
  /** An SDK client for this server, for looking behind a store's back (shared; close() ends it). */
  readonly client: S3Client;
  /**
   * Answers the next `times` requests that match with an S3 error instead of serving them (their
   * bodies are read and dropped). The SDK retries 500s and 503s (3 attempts in all), so to fail an
   * operation outright, fail it 3 times.
   */
  failRequests(match: S3RequestMatch, times?: number, code?: 'InternalError' | 'SlowDown' | 'AccessDenied'): void;
  /** In-progress multipart uploads of a bucket, through ListMultipartUploads. */
  listMultipartUploads(bucket: string): Promise<Array<{ key: string; uploadId: string }>>;
  close(): Promise<void>;
}

// ---- s3rver's shapes (it ships no types) -------------------------------------------------------

interface S3rverObject {
  range?: { start: number; end: number };
}
interface S3rverStoreObject {
  bucket: string;
  key: string;
  content: Buffer | NodeJS.ReadableStream;
  metadata: Record<string, unknown>;
}
interface S3rverStore {
  rootDirectory: string;
  getBucketPath(bucket: string): string;
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
  getMetadata(bucket: string, key: string): Promise<Record<string, unknown>>;
  putMetadata(bucket: string, key: string, metadata: Record<string, unknown>, md5: string): Promise<void>;
  getBucket(bucket: string): Promise<unknown>;
  getObject(bucket: string, key: string, options?: { start?: number; end?: number }): Promise<S3rverObject | null>;
  putObject(object: S3rverStoreObject): Promise<{ size: number; md5: string }>;
  existsObject(bucket: string, key: string): Promise<boolean>;
  deleteObject(bucket: string, key: string): Promise<void>;
  listObjects(bucket: string, options: S3rverListOptions): Promise<S3rverListing>;
}
interface S3rverListOptions {
  prefix?: string;
  delimiter?: string;
  startAfter?: string;
  maxKeys?: number;
}
interface S3rverListing {
  objects: Array<{ key: string; size: number; lastModifiedDate: Date; metadata: Record<string, unknown> }>;
  commonPrefixes: string[];
  isTruncated: boolean;
}
interface KoaContext {
  method: string;
  path: string;
  querystring: string;
  query: Record<string, string | string[] | undefined>;
  headers: Record<string, string | string[] | undefined>;
  status: number;
  body: unknown;
  params?: Record<string, string>;
  req: AsyncIterable<unknown>;
  res: { statusCode: number; getHeader(name: string): unknown };
}
type Middleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;
interface S3rverInstance {
  store: S3rverStore;
  middleware: Middleware[];
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;
type S3ObjectClass = new (bucket: string, key: string, content: NodeJS.ReadableStream | null, metadata: Record<string, unknown>) => S3rverObject;
type S3ErrorClass = new (code: string, message: string, detail?: Record<string, unknown>) => Error;

const require = createRequire(import.meta.url);
const S3rver = require('s3rver') as S3rverClass;
const S3Object = require('s3rver/lib/models/object.js') as S3ObjectClass;
const S3Error = require('s3rver/lib/models/error.js') as S3ErrorClass;
const authenticate = (require('s3rver/lib/middleware/authentication.js') as () => Middleware)();

const errorCode = (e: unknown) => (typeof e === 'object' && e !== null && 'code' in e ? e.code : undefined);
/** No such object: nothing there, or a name too long for any object s3rver could have stored. */
const isMissing = (e: unknown) => errorCode(e) === 'ENOENT' || errorCode(e) === 'ENAMETOOLONG';
const ignoreMissing = (e: unknown) => {
  if (!isMissing(e)) throw e;
};

// ---- Closer to S3 --------------------------------------------------------------------------------

function patchStore(store: S3rverStore): void {
  store.putObject = async function putObject(object) {
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
    const temp = `${objectPath}.${randomBytes(8).toString('hex')}.tmp`;
    // The temp file keeps the folder non-empty, so a racing delete's prune cannot remove it; it
    // can only remove it before the temp file exists, hence the retry.
    let handle: FileHandle | undefined;
    for (let attempt = 0; handle === undefined; attempt++) {
      await mkdir(dirname(objectPath), { recursive: true });
      try {
        handle = await open(temp, 'wx');
      } catch (e) {
        if (errorCode(e) !== 'ENOENT' || attempt >= 5) throw e;
      }
    }
    const md5 = createHash('md5');
    let size = 0;
    try {
      const source = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
      const count = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          md5.update(chunk);
          size += chunk.length;
          callback(null, chunk);
        },
      });
      await pipeline(source, count, createWriteStream('', { fd: handle }));
      await rename(temp, objectPath);
    } catch (e) {
      await rm(temp, { force: true });
      throw e;
    }
    const digest = md5.digest('hex');
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  };

  store.getObject = async function getObject(bucket, key, options) {
    let handle: FileHandle;
    try {
      handle = await open(store.getResourcePath(bucket, key, 'object'), 'r');
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
    try {
      // Size and time from the file we opened; the rest (etag, content type) from its metadata.
      const st = await handle.stat();
      const stored = await store.getMetadata(bucket, key).catch((e: unknown) => {
        ignoreMissing(e);
        return {};
      });
      const metadata = { ...stored, 'content-length': st.size, 'last-modified': st.mtime.toUTCString() };
      if (options?.start === undefined) return new S3Object(bucket, key, handle.createReadStream(), metadata);
      const start = options.start;
      const end = Math.min(options.end ?? Number.POSITIVE_INFINITY, st.size - 1);
      if (!Number.isSafeInteger(start) || start > end) {
        await handle.close();
        const unsatisfiable = new S3Object(bucket, key, null, metadata);
        unsatisfiable.range = { start, end };
        return unsatisfiable; // s3rver answers 416 InvalidRange for a range without content
      }
      const object = new S3Object(bucket, key, handle.createReadStream({ start, end }), metadata);
      object.range = { start, end };
      return object;
    } catch (e) {
      await handle.close().catch(() => undefined);
      throw e;
    }
  };

  store.existsObject = async function existsObject(bucket, key) {
    try {
      return (await stat(store.getResourcePath(bucket, key, 'object'))).isFile();
    } catch (e) {
      ignoreMissing(e);
      return false;
    }
  };

  store.deleteObject = async function deleteObject(bucket, key) {
    await Promise.all(['object', 'object.md5', 'metadata.json'].map((r) => unlink(store.getResourcePath(bucket, key, r)).catch(ignoreMissing)));
    const parts = key.split('/').slice(0, -1);
    for (; parts.length > 0; parts.pop()) {
      try {
        await rmdir(join(store.getBucketPath(bucket), ...parts));
      } catch {
        break; // not empty (a write got there) or already gone (a racing delete)
      }
    }
  };

  const listObjects = store.listObjects.bind(store);
  store.listObjects = async function listObjectsRetrying(bucket, options) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await listObjects(bucket, options);
      } catch (e) {
        if (errorCode(e) !== 'ENOENT' || attempt >= 20) throw e;
      }
    }
  };
}

const queryString = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

/**
 * ListObjectsV2 (GET ?list-type=2), AbortMultipartUpload and ListMultipartUploads, over s3rver's
 * store. s3rver's own ListObjectsV2 makes continuation tokens with DES, which Node 17+ (OpenSSL 3)
 * refuses, so any listing of more than one page failed with a 500.
 */
function addedRoutes(store: S3rverStore): Middleware {
  const uploadsDir = (bucket: string) => store.getResourcePath(bucket, undefined, 'uploads');
  return async (ctx, next) => {
    const [, bucket = '', ...rest] = ctx.path.split('/');
    const key = rest.map((s) => decodeURIComponent(s)).join('/');
    const abort = ctx.method === 'DELETE' && key !== '' && typeof ctx.query.uploadId === 'string';
    const list = ctx.method === 'GET' && key === '' && bucket !== '' && 'uploads' in ctx.query;
    const listV2 = (ctx.method === 'GET' || ctx.method === 'HEAD') && key === '' && bucket !== '' && ctx.query['list-type'] === '2';
    if (!abort && !list && !listV2) return next();
    // s3rver's own access check (the key id), which reads the bucket and key from the router's params.
    ctx.params = key === '' ? { bucket } : { bucket, key };
    await authenticate(ctx, async () => undefined);
    if (!(await store.getBucket(bucket))) throw new S3Error('NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });

    if (listV2) {
      const token = queryString(ctx.query['continuation-token']);
      const startAfter = token !== undefined ? Buffer.from(token, 'base64url').toString('utf8') : queryString(ctx.query['start-after']);
      const maxKeysText = queryString(ctx.query['max-keys']) ?? '1000';
      if (!/^\d+$/.test(maxKeysText)) throw new S3Error('InvalidArgument', 'Provided max-keys not an integer or within integer range');
      const maxKeys = Math.min(1000, Number(maxKeysText));
      const prefix = queryString(ctx.query.prefix) ?? '';
      const delimiter = queryString(ctx.query.delimiter) || undefined;
      const result: S3rverListing =
        maxKeys === 0 ? { objects: [], commonPrefixes: [], isTruncated: false } : await store.listObjects(bucket, { prefix: prefix || undefined, delimiter, startAfter, maxKeys });
      const last = result.objects.at(-1)?.key;
      ctx.body = {
        ListBucketResult: {
          '@': { xmlns: 'http://s3.amazonaws.com/doc/2006-03-01/' },
          Name: bucket,
          Prefix: prefix,
          StartAfter: token === undefined ? startAfter : undefined,
          ContinuationToken: token,
          NextContinuationToken: result.isTruncated && last !== undefined ? Buffer.from(last, 'utf8').toString('base64url') : undefined,
          KeyCount: result.objects.length,
          MaxKeys: maxKeys,
          Delimiter: delimiter,
          IsTruncated: result.isTruncated,
          Contents: result.objects.map((object) => ({
            Key: object.key,
            LastModified: object.lastModifiedDate.toISOString(),
            ETag: object.metadata['etag'],
            Size: object.size,
            StorageClass: 'STANDARD',
          })),
          CommonPrefixes: result.commonPrefixes.map((p) => ({ Prefix: p })),
        },
      };
      return;
    }

    if (abort) {
      const uploadId = ctx.query.uploadId as string;
      const dir = join(uploadsDir(bucket), uploadId);
      const storedKey = /^[0-9a-f]+$/.test(uploadId) ? await readFile(join(dir, 'key'), 'utf8').catch(() => null) : null;
      if (storedKey !== key) {
        throw new S3Error('NoSuchUpload', 'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.', {
          UploadId: uploadId,
        });
      }
      await rm(dir, { recursive: true, force: true });
      ctx.status = 204;
      return;
    }

    const prefix = typeof ctx.query.prefix === 'string' ? ctx.query.prefix : '';
    const uploads: Array<{ Key: string; UploadId: string; Initiated: string }> = [];
    const ids = await readdir(uploadsDir(bucket)).catch((e: unknown) => {
      ignoreMissing(e);
      return [] as string[];
    });
    for (const uploadId of ids.sort()) {
      const uploadKey = await readFile(join(uploadsDir(bucket), uploadId, 'key'), 'utf8').catch(() => null);
      if (uploadKey === null || !uploadKey.startsWith(prefix)) continue;
      const initiated = (await stat(join(uploadsDir(bucket), uploadId))).birthtime.toISOString();
      uploads.push({ Key: uploadKey, UploadId: uploadId, Initiated: initiated });
    }
    uploads.sort((a, b) => (a.Key < b.Key ? -1 : a.Key > b.Key ? 1 : 0));
    ctx.body = {
      ListMultipartUploadsResult: {
        '@': { xmlns: 'http://s3.amazonaws.com/doc/2006-03-01/' },
        Bucket: bucket,
        KeyMarker: '',
        UploadIdMarker: '',
        Prefix: prefix,
        MaxUploads: 1000,
        IsTruncated: false,
        Upload: uploads,
      },
    };
  };
}

function requestLog(requests: S3RequestRecord[]): Middleware {
  // Logged once the answer is decided and before it is sent, so a test that got its answer sees it.
  return async (ctx, next) => {
    const range = ctx.headers['range'];
    const entry = { method: ctx.method, path: ctx.path, query: ctx.querystring, range: typeof range === 'string' ? range : undefined };
    try {
      await next();
    } catch (e) {
      const status = (e as { status?: unknown }).status;
      requests.push({ ...entry, status: typeof status === 'number' ? status : 500, contentLength: undefined });
      throw e;
    }
    const length = ctx.res.getHeader('content-length');
    requests.push({ ...entry, status: ctx.res.statusCode, contentLength: length === undefined ? undefined : Number(length) });
  };
}

interface Fault {
  match: S3RequestMatch;
  remaining: number;
  code: string;
}

function faults(pending: Fault[]): Middleware {
  return async (ctx, next) => {
    const fault = pending.find(
      (f) => f.remaining > 0 && f.match.method === ctx.method && (f.match.query === undefined || f.match.query.test(ctx.querystring)) && (f.match.path === undefined || f.match.path === ctx.path),
    );
    if (fault === undefined) return next();
    fault.remaining--;
    for await (const _ of ctx.req); // drain the body, as S3 does before answering
    throw new S3Error(fault.code, `injected by the test (${fault.code})`);
  };
}

// ---- Starting and stopping -------------------------------------------------------------------

let bucketCounter = 0;

export interface S3ServerOptions {
  /** A fixed port (default: an ephemeral one), e.g. to start the server again where it was. */
  port?: number;
  /**
   * An existing data folder (default: a new temp folder), e.g. one a closed server left, so its
   * buckets and objects are served again. A folder given here is the caller's: close() keeps it.
   */
  directory?: string;
}

export async function startS3Server(options: S3ServerOptions = {}): Promise<S3TestServer> {
  const ownDirectory = options.directory === undefined;
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), 'gatehouse-s3rver-')));
  const server = new S3rver({
    address: '127.0.0.1',
    port: options.port ?? 0,
    silent: true,
    directory,
    // Path-style only: with virtual hosts on, a Host of 127.0.0.1 is fine, but be explicit.
    vhostBuckets: false,
  });
  patchStore(server.store);
  const requests: S3RequestRecord[] = [];
  // s3rver's middleware: logger, XML encoder, mount interop, vhost, router. The request log goes
  // first (it sees every answer, errors included); the multipart routes just before the router,
  // so their answers and errors are encoded as s3rver's are.
  server.middleware.splice(server.middleware.length - 1, 0, addedRoutes(server.store));
  const pendingFaults: Fault[] = [];
  server.middleware.unshift(requestLog(requests), faults(pendingFaults));

  let port: number;
  try {
    ({ port } = await server.run());
  } catch (e) {
    if (ownDirectory) await rm(directory, { recursive: true, force: true });
    throw e;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ region: S3_TEST_REGION, endpoint, forcePathStyle: true, credentials: S3_TEST_CREDENTIALS });

  return {
    endpoint,
    port,
    directory,
    requests,
    client,
    async createBucket(name) {
      const bucket = name ?? `gatehouse-${process.pid}-${++bucketCounter}-${randomBytes(3).toString('hex')}`;
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      return bucket;
    },
    storeOptions(bucket, extra = {}) {
      return { bucket, region: S3_TEST_REGION, endpoint, forcePathStyle: true, ...S3_TEST_CREDENTIALS, ...extra };
    },
    failRequests(match, times = 1, code = 'InternalError') {
      pendingFaults.push({ match, remaining: times, code });
    },
    async listMultipartUploads(bucket) {
      const out = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
      return (out.Uploads ?? []).map((u) => ({ key: u.Key ?? '', uploadId: u.UploadId ?? '' }));
    },
    async close() {
      client.destroy();
      await server.close().catch(() => undefined);
      if (ownDirectory) await rm(directory, { recursive: true, force: true });
    },
  };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => resolve());
  });
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
