// The content app_context serves, kept in process while the application's contentVersion (bumped
// by every write, in any process) is the one the request just read: a change is served on the
// very next request, on every instance (docs/choices.md, "The content cache").
import type { HeldPlan } from '../../domain/membership-state.js';
import type { ContentStore } from '../ports/content-store.js';
import type { FileStore } from '../ports/file-store.js';
import type { PlanStore } from '../ports/plan-store.js';
import type { AnnouncementRecord, ApplicationRecord, FileRecord, VariableRecord } from '../records.js';

export interface ApplicationContent {
  variables: VariableRecord[];
  announcements: AnnouncementRecord[];
  files: FileRecord[];
  /** The application's plans by id, as membership answers read them (docs/plans.md, "Entitlements"). */
  plans: ReadonlyMap<string, HeldPlan>;
}

export interface ContentCache {
  /** The application's content as of at least `app.contentVersion`. */
  contentOf(app: ApplicationRecord): Promise<ApplicationContent>;
}

/** How many applications' content one process keeps; the least recently used goes first. */
export const CONTENT_CACHE_APPLICATIONS = 1_000;

export function createContentCache(store: ContentStore & FileStore & Pick<PlanStore, 'listPlans'>, capacity = CONTENT_CACHE_APPLICATIONS): ContentCache {
  // Insertion order is recency: a hit moves its entry to the end. The content is a promise, so
  // requests that arrive while it loads share one load.
  const entries = new Map<string, { version: number; content: Promise<ApplicationContent> }>();
  const load = async (applicationId: string): Promise<ApplicationContent> => {
    const [variables, announcements, files, plans] = await Promise.all([
      store.listVariables(applicationId),
      store.listAnnouncements(applicationId),
      store.listFiles(applicationId),
      store.listPlans(applicationId),
    ]);
    return { variables, announcements, files, plans: new Map(plans.map((p) => [p.id, p])) };
  };
  return {
    contentOf(app) {
      const hit = entries.get(app.id);
      if (hit !== undefined && hit.version === app.contentVersion) {
        entries.delete(app.id);
        entries.set(app.id, hit);
        return hit.content;
      }
      // Loaded after the version was read, so at least that new; a request that read an older
      // version than the cached one (it started before the change) loads for itself, uncached.
      const content = load(app.id);
      if (hit !== undefined && hit.version > app.contentVersion) return content;
      const entry = { version: app.contentVersion, content };
      entries.delete(app.id);
      entries.set(app.id, entry);
      if (entries.size > capacity) entries.delete(entries.keys().next().value as string);
      // A failed load is not kept: the next request tries again.
      content.catch(() => entries.get(app.id) === entry && entries.delete(app.id));
      return content;
    },
  };
}
