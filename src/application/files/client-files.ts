import type { Actor } from '../events/actor.js';
import { loginRequired } from '../../domain/errors.js';
import { isDownloadable, fileNotFound } from '../../domain/files.js';
import { type Audience, visibleTo } from '../../domain/visibility.js';
import type { Caller } from '../deps.js';
import { authenticateReader, type PresentedUser, type ReaderDeps } from '../integration/authenticate-user.js';
import type { FileStore } from '../ports/file-store.js';
import type { ApplicationRecord, FileRecord } from '../records.js';

/** The files a client may see: stored ones, public ones only for anonymous callers. */
export function clientFiles(files: readonly FileRecord[], audience: Audience): FileRecord[] {
  return visibleTo(
    files.filter((f) => isDownloadable(f.state)),
    audience,
  );
}

/** A file for a client download, under the app context's authentication. An anonymous caller asking
 * for a private file is told to log in (LOGIN_REQUIRED, what a client acts on); another application's
 * file, no file, or one whose contents are not stored yet answers 404. */
export async function clientDownload(deps: ReaderDeps & { store: FileStore }, app: ApplicationRecord, fileId: string, presented: PresentedUser, caller: Caller, actor: Actor): Promise<FileRecord> {
  const user = await authenticateReader(deps, app, presented, caller, actor);
  const file = await deps.store.findFile(app.id, fileId);
  if (file === null) throw fileNotFound();
  const audience: Audience = user === null ? 'anonymous' : 'member';
  if (visibleTo([file], audience).length === 0) throw loginRequired();
  if (!isDownloadable(file.state)) throw fileNotFound();
  return file;
}
