import type { Deps } from '../deps.js';

/** An upload streamed to staging storage, not yet attached to any file. */
export interface StagedUpload {
  key: string;
  size: number;
}

/** Streams an upload to a fresh staging object, never holding it in memory. Past the configured
 * maximum it fails with PAYLOAD_TOO_LARGE and leaves nothing behind. */
export async function stageUpload(deps: Pick<Deps, 'blobs' | 'files' | 'ids'>, content: NodeJS.ReadableStream | AsyncIterable<Uint8Array>): Promise<StagedUpload> {
  const key = `staging/${deps.ids.uuid()}`;
  const info = await deps.blobs.write(key, content, { maxBytes: deps.files.maxUploadBytes });
  return { key, size: info.size };
}

/** Removes blobs no longer needed. Best effort: whatever fails here the orphan sweep collects. */
export async function discardBlobs(deps: Pick<Deps, 'blobs'>, keys: Iterable<string | null | undefined>): Promise<void> {
  await Promise.all([...keys].filter((k): k is string => typeof k === 'string').map((k) => deps.blobs.delete(k).catch(() => undefined)));
}
