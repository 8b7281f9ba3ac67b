import type { Actor } from '../events/actor.js';
import { liveAnnouncements } from '../../domain/announcements.js';
import { type Audience, visibleTo } from '../../domain/visibility.js';
import type { Caller, Deps } from '../deps.js';
import type { AnnouncementRecord, ApplicationRecord, FileRecord, VariableRecord } from '../records.js';
import { type Member, memberWith } from '../member.js';
import { clientFiles } from '../files/client-files.js';
import { authenticateReader, type PresentedUser, type ReaderDeps } from './authenticate-user.js';
import type { ApplicationContent } from './content-cache.js';

export interface AppContext {
  app: ApplicationRecord;
  /** The variables and downloadable files the caller may see: the same arrays for every request
   * of one audience while the application's cached content stands, so that views may keep what
   * they make of them (docs/performance-log.md, app_context). */
  variables: readonly VariableRecord[];
  files: readonly FileRecord[];
  announcements: AnnouncementRecord[];
  /** The authenticated user with their plans, shown only where the application does not allow anonymous access. */
  user: Member | null;
  serverTime: number;
}

/** What each audience sees of a cached content, kept with it (a new content is a new object). */
const visibleSets = new WeakMap<ApplicationContent, Partial<Record<Audience, Pick<AppContext, 'variables' | 'files'>>>>();

function visibleContent(content: ApplicationContent, audience: Audience): Pick<AppContext, 'variables' | 'files'> {
  let sets = visibleSets.get(content);
  if (sets === undefined) visibleSets.set(content, (sets = {}));
  return (sets[audience] ??= { variables: visibleTo(content.variables, audience), files: clientFiles(content.files, audience) });
}

export async function appContext(deps: ReaderDeps & Pick<Deps, 'clock' | 'content'>, app: ApplicationRecord, presented: PresentedUser, caller: Caller, actor: Actor): Promise<AppContext> {
  const user = await authenticateReader(deps, app, presented, caller, actor);
  const content = await deps.content.contentOf(app);
  // The plans only for a user who is shown, from the content's (docs/plans.md, "Entitlements").
  const shown = app.settings.anonymousAccess || user === null ? null : memberWith(deps, content.plans, user);
  const now = deps.clock.now();
  // An authenticated user reaching here has an active membership (checked above): a member.
  const audience = user === null ? 'anonymous' : 'member';
  const { variables, files } = visibleContent(content, audience);
  return {
    app,
    variables,
    files,
    announcements: liveAnnouncements(content.announcements, now),
    // The API reference (docs/api.md, GET /app_context): user is null when not authenticated or when anonymous access is allowed.
    user: shown === null ? null : await shown,
    serverTime: now,
  };
}
