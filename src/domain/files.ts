import { DomainError, validationError } from './errors.js';
import type { Instant } from './time.js';

export type ProcessingStatus = 'PENDING' | 'COMPLETED' | 'FAILED';
export type StorageStatus = 'NOT_STORED' | 'STORED';
export type FileSource = 'ADMIN_API' | 'DASHBOARD';

/** Contents as stored: what a download serves. */
export interface StoredContents {
  blobKey: string;
  /** Bytes of the file as uploaded. */
  sizeBytes: number;
  /** sha256 (hex) of the file as uploaded. */
  sha256: string;
  /** Bytes as stored (the encrypted form is larger). */
  storedSizeBytes: number;
  /** sha256 (hex) of the bytes as stored: the download's ETag. */
  storedSha256: string;
  encrypted: boolean;
}

export interface FileState {
  processingStatus: ProcessingStatus;
  /** The contents being served, if any: kept while a replacement is processed or has failed. */
  stored: StoredContents | null;
  /** The job whose upload is awaited; null once settled. */
  pendingJobId: string | null;
  processingError: string | null;
}

export const storageStatus = (f: FileState): StorageStatus => (f.stored === null ? 'NOT_STORED' : 'STORED');

/** A file is downloadable (and listed in the app context) once it has stored contents. */
export const isDownloadable = (f: FileState): boolean => f.stored !== null;

/** A new upload or replacement: PENDING until its job settles; previous contents stay served. */
export function acceptUpload(f: FileState | null, jobId: string): FileState {
  return { processingStatus: 'PENDING', stored: f?.stored ?? null, pendingJobId: jobId, processingError: null };
}

/** The awaited job stored new contents: they replace the previous ones at once. A job no longer
 * awaited (a newer upload superseded it) changes nothing: its contents are discarded. */
export function completeUpload(f: FileState, jobId: string, contents: StoredContents): { next: FileState; discard: string | null } {
  if (f.pendingJobId !== jobId) return { next: f, discard: contents.blobKey };
  const replaced = f.stored?.blobKey ?? null;
  return {
    next: { processingStatus: 'COMPLETED', stored: contents, pendingJobId: null, processingError: null },
    discard: replaced === contents.blobKey ? null : replaced,
  };
}

/** The awaited job failed for good: FAILED with a message; previous contents stay served. */
export function failUpload(f: FileState, jobId: string, message: string): FileState {
  if (f.pendingJobId !== jobId) return f;
  return { processingStatus: 'FAILED', stored: f.stored, pendingJobId: null, processingError: message.slice(0, 1000) };
}

export const FILE_NAME_MAX = 4096;

/** A logical file name: metadata only, never a path. Anything printable goes, but NUL (which no
 * database text column keeps faithfully) and names over FILE_NAME_MAX characters. */
export function acceptFileName(raw: string, field = 'name'): string {
  if (raw.length === 0) throw validationError(field, 'must not be empty');
  if ([...raw].length > FILE_NAME_MAX) throw validationError(field, `must be at most ${FILE_NAME_MAX} characters`);
  if (raw.includes('\u0000')) throw validationError(field, 'must not contain NUL');
  return raw;
}

/** The name as uploaded (multipart filename): kept as metadata, trimmed of NULs and to length. */
export function originalFilename(raw: string | undefined | null): string {
  const cleaned = (raw ?? '').replace(/\u0000/g, '');
  return [...cleaned].slice(0, FILE_NAME_MAX).join('') || 'upload';
}

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The declared media type when it is a plain type/subtype; application/octet-stream otherwise. */
export function acceptMimeType(declared: string | undefined | null): string {
  const type = (declared ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return MIME.test(type) ? type : 'application/octet-stream';
}

export const fileNotFound = () => new DomainError('FILE_NOT_FOUND', 'no such file');

/** How long a job may stay claimed without a heartbeat before another worker takes it over. */
export const JOB_LEASE_MS = 30_000;
export const JOB_MAX_ATTEMPTS = 5;

/** Backoff before retry `attempt` (1-based): 1 s, 4 s, 16 s, … capped at 5 minutes. */
export function retryDelay(attempt: number): number {
  return Math.min(5 * 60_000, 1000 * 4 ** Math.max(0, attempt - 1));
}

export interface JobState {
  attempts: number;
  runAfter: Instant;
  leaseUntil: Instant | null;
}

/** A job can be claimed when due and not under a live lease. */
export const isClaimable = (j: JobState, now: Instant): boolean => j.runAfter <= now && (j.leaseUntil === null || j.leaseUntil <= now);

/** Where a job stands: a worker holds it, it waits to be claimed, or it waits for its retry. */
export type JobPhase = 'running' | 'due' | 'retrying';

export const jobPhase = (j: Pick<JobState, 'runAfter' | 'leaseUntil'>, now: Instant): JobPhase => (j.leaseUntil !== null && j.leaseUntil > now ? 'running' : j.runAfter <= now ? 'due' : 'retrying');
