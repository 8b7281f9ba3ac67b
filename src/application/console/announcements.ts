import type { Actor } from '../events/actor.js';
import { type AnnouncementStatus, validateWindow } from '../../domain/announcements.js';
import { validateName } from '../../domain/application-settings.js';
import { DomainError } from '../../domain/errors.js';
import type { Instant } from '../../domain/time.js';
import type { Deps } from '../deps.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { AnnouncementPatch, ContentStore } from '../ports/content-store.js';
import type { AnnouncementRecord, OwnerRecord } from '../records.js';
import { ownedApplication } from './applications.js';

export const ANNOUNCEMENT_TITLE_MAX = 200;

export interface AnnouncementInput {
  title: string;
  contentHtml: string;
  status: AnnouncementStatus;
  publishFrom: Instant;
  publishUntil: Instant | null;
}

const notFound = () => new DomainError('ANNOUNCEMENT_NOT_FOUND', 'no such announcement');

/** Owners' HTML is stored sanitised (docs/api.md, Announcements): clients show it as it is served. */
export async function createAnnouncement(
  deps: Pick<Deps, 'clock' | 'html' | 'ids'> & { store: ApplicationStore & ContentStore },
  owner: OwnerRecord,
  appId: string,
  input: AnnouncementInput,
  actor: Actor,
): Promise<AnnouncementRecord> {
  const app = await ownedApplication(deps, owner, appId);
  const title = validateName('title', input.title, ANNOUNCEMENT_TITLE_MAX);
  validateWindow(input.publishFrom, input.publishUntil);
  const record: AnnouncementRecord = {
    ...input,
    title,
    contentHtml: deps.html.sanitize(input.contentHtml),
    id: deps.ids.uuid(),
    applicationId: app.id,
    createdAt: deps.clock.now(),
  };
  await deps.store.createAnnouncement(record, actor);
  return record;
}

export async function listAnnouncements(deps: { store: ApplicationStore & ContentStore }, owner: OwnerRecord, appId: string): Promise<AnnouncementRecord[]> {
  const app = await ownedApplication(deps, owner, appId);
  return deps.store.listAnnouncements(app.id);
}

/** Changes the fields given in one store operation; the resulting publication window is checked as
 * a whole inside it, so parallel patches of different fields all hold. */
export async function updateAnnouncement(
  deps: Pick<Deps, 'html' | 'clock'> & { store: ApplicationStore & ContentStore },
  owner: OwnerRecord,
  appId: string,
  id: string,
  patch: Partial<AnnouncementInput>,
  actor: Actor,
): Promise<AnnouncementRecord> {
  const app = await ownedApplication(deps, owner, appId);
  const given: AnnouncementPatch = { ...patch };
  if (patch.contentHtml !== undefined) given.contentHtml = deps.html.sanitize(patch.contentHtml);
  if (patch.title !== undefined) given.title = validateName('title', patch.title, ANNOUNCEMENT_TITLE_MAX);
  const next = await deps.store.patchAnnouncement(app.id, id, given, deps.clock.now(), actor);
  if (next === null) throw notFound();
  return next;
}

export async function deleteAnnouncement(deps: Pick<Deps, 'clock'> & { store: ApplicationStore & ContentStore }, owner: OwnerRecord, appId: string, id: string, actor: Actor): Promise<void> {
  const app = await ownedApplication(deps, owner, appId);
  if (!(await deps.store.deleteAnnouncement(app.id, id, deps.clock.now(), actor))) throw notFound();
}
