// BlobStore on S3 or an S3-compatible store: the object with key `a/b` is `<prefix>a/b` in the bucket.
// Uploads, aborts past maxBytes, ranges, times, errors and client settings, and why each is so:
// docs/architecture.md, "Blob stores".
import { Readable } from 'node:stream';
import { AbortMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListObjectsV2Command, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { BlobInfo, BlobStore } from '../../application/ports/blob-store.js';
import { DomainError } from '../../domain/errors.js';
import { assertBlobKey, assertBlobPrefix, assertBlobRange, assertMaxBytes, isBlobKey } from './blob-keys.js';
import { keepEarlyErrors } from './early-errors.js';

const MiB = 1024 * 1024;
/** Bytes per multipart part (S3's minimum is 5 MiB, except the last part). */
export const PART_SIZE = 8 * MiB;
/** Parts uploaded at once per write. */
export const QUEUE_SIZE = 3;
/** S3's smallest part. */
export const MIN_PART_SIZE = 5 * MiB;

export interface S3BlobStoreOptions {
  bucket: string;
  /** Unset or '': us-east-1 (what most S3-compatible stores expect when they ignore regions). */
  region?: string;
  /** An S3-compatible endpoint, e.g. http://127.0.0.1:9000. Unset or '': AWS S3. */
  endpoint?: string;
  /** Path-style URLs (`endpoint/bucket/key`), which most S3-compatible stores need. */
  forcePathStyle?: boolean;
  /** Both or neither ('' counts as unset); neither: the SDK's default chain (environment, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Objects live under `<prefix>/`; '' or unset: at the bucket's root. */
  prefix?: string;
  /** Multipart part size, at least 5 MiB; default PART_SIZE. */
  partSize?: number;
  /** Parts in flight per write, at least 1; default QUEUE_SIZE. */
  queueSize?: number;
}

// ---- Errors ------------------------------------------------------------------------------------

interface SdkErrorShape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

const shape = (e: unknown): SdkErrorShape => (typeof e === 'object' && e !== null ? e : {});
const statusOf = (e: unknown): number | undefined => {
  const status = shape(e).$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
};
const nameOf = (e: unknown): string => {
  const name = shape(e).name;
  return typeof name === 'string' ? name : '';
};
/** A Node network error code (ECONNREFUSED, ENOTFOUND, ...) anywhere in the error. */
const networkCodeOf = (e: unknown): string | undefined => {
  const code = shape(e).code;
  if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
  const errors = (e as { errors?: unknown } | null)?.errors; // AggregateError (dual-stack connect)
  if (!Array.isArray(errors)) return undefined;
  for (const inner of errors) {
    const found = networkCodeOf(inner);
    if (found !== undefined) return found;
  }
  return undefined;
};

const isNoSuchBucket = (e: unknown) => nameOf(e) === 'NoSuchBucket';
const isNotFound = (e: unknown) => !isNoSuchBucket(e) && (nameOf(e) === 'NoSuchKey' || nameOf(e) === 'NotFound' || statusOf(e) === 404);
const isInvalidRange = (e: unknown) => nameOf(e) === 'InvalidRange' || statusOf(e) === 416;
const isNoSuchUpload = (e: unknown) => nameOf(e) === 'NoSuchUpload' || statusOf(e) === 404;

const oneLine = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text).replace(/\s+/g, ' ');

/** Where requests go, for messages: the endpoint's origin (never userinfo), or AWS. */
const describeEndpoint = (endpoint: string | undefined, region: string) => {
  if (endpoint === undefined) return `AWS S3 (${region})`;
  try {
    return new URL(endpoint).origin;
  } catch {
    return 'the configured S3 endpoint';
  }
};

// ---- Keys and options --------------------------------------------------------------------------

const PREFIX_SEGMENT = /^[A-Za-z0-9!_.*'()-]+$/;

function normalizePrefix(prefix: string | undefined): string {
  if (prefix === undefined || prefix === '') return '';
  if (typeof prefix !== 'string') throw new Error('S3 blob store: prefix must be a string');
  const body = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  const segments = body.split('/');
  if (body.length > 256 || segments.some((s) => !PREFIX_SEGMENT.test(s) || s === '.' || s === '..')) {
    throw new Error(`S3 blob store: invalid prefix ${JSON.stringify(prefix)} (plain segments separated by '/', no leading '/')`);
  }
  return `${body}/`;
}

const secondsOf = (date: Date | undefined): number => {
  const ms = date?.getTime();
  if (ms === undefined || Number.isNaN(ms)) throw new Error('S3 answered without a valid LastModified');
  return Math.floor(ms / 1000) * 1000;
};

/** The body's bytes, copied, counted, and failing past maxBytes; records the failure it raised. */
async function* countBytes(body: NodeJS.ReadableStream | AsyncIterable<Uint8Array>, maxBytes: number, state: { size: number; failure: { error: unknown } | null }): AsyncGenerator<Buffer> {
  const iterator = (body as AsyncIterable<Uint8Array | string>)[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      let step: IteratorResult<Uint8Array | string>;
      try {
        step = await iterator.next();
      } catch (e) {
        finished = true; // a failed iterator is done
        state.failure ??= { error: e };
        throw e;
      }
      if (step.done === true) {
        finished = true;
        return;
      }
      const bytes = typeof step.value === 'string' ? Buffer.from(step.value) : Buffer.from(step.value);
      state.size += bytes.byteLength;
      if (state.size > maxBytes) {
        const error = new DomainError('PAYLOAD_TOO_LARGE', `the upload exceeds ${maxBytes} bytes`);
        state.failure ??= { error };
        throw error;
      }
      yield bytes;
    }
  } finally {
    // Stop the source when we stop early: a Node stream is destroyed, a generator returns.
    if (!finished) await iterator.return?.().catch(() => undefined);
  }
}

// ---- The store ---------------------------------------------------------------------------------

export function createS3BlobStore(options: S3BlobStoreOptions): BlobStore {
  const { bucket } = options;
  const endpoint = options.endpoint === '' ? undefined : options.endpoint;
  if (typeof bucket !== 'string' || bucket === '') throw new Error('S3 blob store: bucket is required');
  const region = options.region === undefined || options.region === '' ? 'us-east-1' : options.region;
  if (endpoint !== undefined) {
    try {
      new URL(endpoint);
    } catch {
      throw new Error('S3 blob store: endpoint must be a URL such as http://127.0.0.1:9000');
    }
  }
  const hasKeyId = options.accessKeyId !== undefined && options.accessKeyId !== '';
  const hasSecret = options.secretAccessKey !== undefined && options.secretAccessKey !== '';
  if (hasKeyId !== hasSecret) throw new Error('S3 blob store: set both the access key id and the secret access key, or neither');
  const partSize = options.partSize ?? PART_SIZE;
  if (!Number.isSafeInteger(partSize) || partSize < MIN_PART_SIZE) throw new Error(`S3 blob store: partSize must be at least ${MIN_PART_SIZE} bytes`);
  const queueSize = options.queueSize ?? QUEUE_SIZE;
  if (!Number.isSafeInteger(queueSize) || queueSize < 1) throw new Error('S3 blob store: queueSize must be at least 1');
  const prefix = normalizePrefix(options.prefix);
  const where = describeEndpoint(endpoint, region);

  const config: S3ClientConfig = {
    region,
    forcePathStyle: options.forcePathStyle === true,
    // A download held open by a slow client keeps its socket: allow many.
    requestHandler: {
      connectionTimeout: 10_000,
      httpAgent: { keepAlive: true, maxSockets: 256 },
      httpsAgent: { keepAlive: true, maxSockets: 256 },
    },
  };
  if (endpoint !== undefined) {
    config.endpoint = endpoint;
    config.requestChecksumCalculation = 'WHEN_REQUIRED';
    config.responseChecksumValidation = 'WHEN_REQUIRED';
  }
  if (hasKeyId) config.credentials = { accessKeyId: options.accessKeyId!, secretAccessKey: options.secretAccessKey! };
  const client = new S3Client(config);

  const objectKeyOf = (key: string) => {
    assertBlobKey(key);
    return prefix + key;
  };

  /** A plain Error for a failed call: `S3 <operation> <bucket/key> failed (<code>, HTTP <status>): <message>`. */
  const failure = (operation: string, target: string, e: unknown): Error => {
    const status = statusOf(e);
    const network = networkCodeOf(e);
    const name = nameOf(e);
    const rawMessage = shape(e).message;
    const message = typeof rawMessage === 'string' && rawMessage !== '' && rawMessage !== 'UnknownError' ? oneLine(rawMessage) : '';
    const subject = `S3 ${operation} ${target}`;
    if (isNoSuchBucket(e)) return new Error(`${subject}: the bucket ${JSON.stringify(bucket)} does not exist at ${where}`);
    if (status === undefined && network !== undefined) return new Error(`${subject}: cannot reach ${where} (${network})`);
    const detail = [name !== '' && name !== 'Error' ? name : null, status !== undefined ? `HTTP ${status}` : null].filter(Boolean).join(', ');
    return new Error(`${subject} failed${detail ? ` (${detail})` : ''}${message ? `: ${message}` : ''}`);
  };
  const describeObject = (objectKey: string) => `${bucket}/${objectKey}`;

  const head = async (objectKey: string): Promise<BlobInfo | null> => {
    try {
      const out = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey }));
      return { size: out.ContentLength ?? 0, modifiedAt: secondsOf(out.LastModified) };
    } catch (e) {
      if (isNotFound(e)) return null;
      throw failure('HeadObject', describeObject(objectKey), e);
    }
  };

  const anyUnder = async (objectPrefix: string): Promise<boolean> => {
    try {
      const out = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: objectPrefix, MaxKeys: 1 }));
      return (out.Contents?.length ?? 0) > 0;
    } catch (e) {
      throw failure('ListObjectsV2', describeObject(objectPrefix), e);
    }
  };

  /** Throws when `key` would sit on an object's "folder" or be one (docs/architecture.md, "Blob stores"). */
  const assertNoClash = async (key: string): Promise<void> => {
    const segments = key.split('/');
    const parents = segments.slice(0, -1).map((_, i) => prefix + segments.slice(0, i + 1).join('/'));
    const found = await Promise.all([...parents.map(async (p) => (await head(p)) !== null), anyUnder(`${prefix}${key}/`)]);
    if (found.some(Boolean)) throw new Error(`blob key ${JSON.stringify(key)} clashes with an existing object or its folder`);
  };

  const abortUpload = async (objectKey: string, uploadId: string): Promise<void> => {
    try {
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: objectKey, UploadId: uploadId }));
    } catch (e) {
      if (isNoSuchUpload(e)) return; // already aborted (by lib-storage): the usual case
      throw failure('AbortMultipartUpload', describeObject(objectKey), e);
    }
  };

  async function* entries(listPrefix: string): AsyncGenerator<{ key: string } & BlobInfo> {
    let token: string | undefined;
    do {
      let out;
      try {
        out = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix + listPrefix, ContinuationToken: token }));
      } catch (e) {
        throw failure('ListObjectsV2', describeObject(prefix + listPrefix), e);
      }
      for (const object of out.Contents ?? []) {
        if (object.Key === undefined || !object.Key.startsWith(prefix)) continue;
        const key = object.Key.slice(prefix.length);
        // Anything no key could name (put there by other tools) is not ours to list.
        if (!isBlobKey(key)) continue;
        yield { key, size: object.Size ?? 0, modifiedAt: secondsOf(object.LastModified) };
      }
      token = out.IsTruncated === true ? out.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  return {
    async write(key, body, writeOptions = {}) {
      const objectKey = objectKeyOf(key);
      assertMaxBytes(writeOptions.maxBytes);
      keepEarlyErrors(body);
      await assertNoClash(key);
      const state: { size: number; failure: { error: unknown } | null } = { size: 0, failure: null };
      const source = Readable.from(countBytes(body, writeOptions.maxBytes ?? Number.POSITIVE_INFINITY, state), { objectMode: false });
      // Stopped by the counting stream, never upload.abort(): done() would reject while the parts in
      // flight and the abort still run, and write() return before the upload is gone.
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: objectKey, Body: source },
        partSize,
        queueSize,
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (e) {
        source.destroy();
        const uploadId = upload.uploadId;
        const cleanup = uploadId === undefined ? Promise.resolve() : abortUpload(objectKey, uploadId);
        if (state.failure !== null) {
          await cleanup.catch(() => undefined);
          throw state.failure.error;
        }
        await cleanup;
        throw failure('upload of', describeObject(objectKey), e);
      }
      const info = await head(objectKey);
      // Null only when a concurrent delete already removed it: the write itself succeeded.
      return { size: state.size, modifiedAt: info?.modifiedAt ?? Math.floor(Date.now() / 1000) * 1000 };
    },

    async read(key, range) {
      const objectKey = objectKeyOf(key);
      if (range !== undefined) assertBlobRange(range);
      let body: unknown;
      try {
        const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey, Range: range === undefined ? undefined : `bytes=${range.start}-${range.end}` }));
        body = out.Body;
      } catch (e) {
        if (isNotFound(e)) return null;
        if (range !== undefined && isInvalidRange(e)) return Readable.from([]);
        throw failure('GetObject', describeObject(objectKey), e);
      }
      if (!(body instanceof Readable)) throw new Error(`S3 GetObject ${describeObject(objectKey)}: the response has no readable body`);
      return body;
    },

    async stat(key) {
      return head(objectKeyOf(key));
    },

    async delete(key) {
      const objectKey = objectKeyOf(key);
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey }));
      } catch (e) {
        if (isNotFound(e)) return; // S3 answers 204 for a missing key; some compatibles 404
        throw failure('DeleteObject', describeObject(objectKey), e);
      }
    },

    list(listPrefix) {
      assertBlobPrefix(listPrefix);
      return entries(listPrefix);
    },

    async ping() {
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
      } catch (e) {
        const status = statusOf(e);
        if (status === 404 || isNoSuchBucket(e)) throw new Error(`S3 bucket ${JSON.stringify(bucket)} does not exist at ${where}`);
        if (status === 403) throw new Error(`S3 bucket ${JSON.stringify(bucket)} at ${where}: access denied (check the credentials and the bucket policy)`);
        if (status === 301 || status === 400) {
          throw new Error(`S3 bucket ${JSON.stringify(bucket)} at ${where}: rejected (HTTP ${status}; is the region ${JSON.stringify(region)} right?)`);
        }
        throw failure('HeadBucket', `on bucket ${JSON.stringify(bucket)}`, e);
      }
    },
  };
}
