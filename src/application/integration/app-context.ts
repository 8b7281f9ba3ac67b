import { liveAnnouncements } from '../../domain/announcements.js';
import { visibleTo } from '../../domain/visibility.js';
import type { Caller, Deps } from '../deps.js';
import type { AnnouncementRecord, ApplicationRecord, FileRecord, UserRecord, VariableRecord } from '../records.js';
import { clientFiles } from '../files/client-files.js';
import { authenticateReader, type PresentedUser, type ReaderDeps } from './authenticate-user.js';

export interface AppContext {
  app: ApplicationRecord;
  variables: VariableRecord[];
  /** Downloadable files the caller may see. */
  files: FileRecord[];
  announcements: AnnouncementRecord[];
  /** The authenticated user, shown only where the application does not allow anonymous access. */
  user: UserRecord | null;
  serverTime: number;
}

export async function appContext(
  deps: ReaderDeps & Pick<Deps, 'clock' | 'content'>,
  app: ApplicationRecord,
  presented: PresentedUser,
  caller: Caller,
): Promise<AppContext> {
  const user = await authenticateReader(deps, app, presented, caller);
  const { variables, announcements, files } = await deps.content.contentOf(app);
  const now = deps.clock.now();
  // An authenticated user reaching here has an active membership (checked above): a member.
  const audience = user === null ? 'anonymous' : 'member';
  return {
    app,
    variables: visibleTo(variables, audience),
    files: clientFiles(files, audience),
    announcements: liveAnnouncements(announcements, now),
    // The API reference (docs/api.md, GET /app_context): user is null when not authenticated or when anonymous access is allowed.
    user: app.settings.anonymousAccess ? null : user,
    serverTime: now,
  };
}
