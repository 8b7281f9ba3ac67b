import { type AnnouncementStatus, validateWindow } from '../../domain/announcements.js';
import { validateName } from '../../domain/application-settings.js';
import { DomainError } from '../../domain/errors.js';
import type { Instant } from '../../domain/time.js';
import type { Deps } from '../deps.js';
import type { AnnouncementRecord, OwnerRecord } from '../ports.js';
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

/** Owners' HTML is stored sanitised (README, Announcements): clients show it as it is served. */
export async function createAnnouncement(deps: Deps, owner: OwnerRecord, appId: string, input: AnnouncementInput): Promise<AnnouncementRecord> {
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
  await deps.store.createAnnouncement(record);
  return record;
}

export async function listAnnouncements(deps: Deps, owner: OwnerRecord, appId: string): Promise<AnnouncementRecord[]> {
  const app = await ownedApplication(deps, owner, appId);
  return deps.store.listAnnouncements(app.id);
}

/** Changes the fields given; the resulting publication window is checked as a whole. */
export async function updateAnnouncement(
  deps: Deps,
  owner: OwnerRecord,
  appId: string,
  id: string,
  patch: Partial<AnnouncementInput>,
): Promise<AnnouncementRecord> {
  const app = await ownedApplication(deps, owner, appId);
  const current = await deps.store.findAnnouncement(app.id, id);
  if (current === null) throw notFound();
  const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<AnnouncementInput>;
  if (defined.contentHtml !== undefined) defined.contentHtml = deps.html.sanitize(defined.contentHtml);
  const next: AnnouncementRecord = { ...current, ...defined };
  if (defined.title !== undefined) next.title = validateName('title', defined.title, ANNOUNCEMENT_TITLE_MAX);
  validateWindow(next.publishFrom, next.publishUntil);
  if (!(await deps.store.updateAnnouncement(next))) throw notFound();
  return next;
}

export async function deleteAnnouncement(deps: Deps, owner: OwnerRecord, appId: string, id: string): Promise<void> {
  const app = await ownedApplication(deps, owner, appId);
  if (!(await deps.store.deleteAnnouncement(app.id, id))) throw notFound();
}
