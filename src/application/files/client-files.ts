import { isDownloadable, fileNotFound } from '../../domain/files.js';
import { type Audience, visibleTo } from '../../domain/visibility.js';
import type { Caller, Deps } from '../deps.js';
import { authenticateReader, type PresentedUser } from '../integration/authenticate-user.js';
import type { ApplicationRecord, FileRecord } from '../ports.js';

/** The files a client may see: stored ones, public ones only for anonymous callers. */
export function clientFiles(files: readonly FileRecord[], audience: Audience): FileRecord[] {
  return visibleTo(files.filter((f) => isDownloadable(f.state)), audience);
}

/**
 * A file for a client download, under the same authentication as the app context. A file the
 * caller may not see answers exactly like a missing one.
 */
export async function clientDownload(deps: Deps, app: ApplicationRecord, fileId: string, presented: PresentedUser, caller: Caller): Promise<FileRecord> {
  const user = await authenticateReader(deps, app, presented, caller);
  const file = await deps.store.findFile(app.id, fileId);
  if (file === null || clientFiles([file], user === null ? 'anonymous' : 'member').length === 0) throw fileNotFound();
  return file;
}
