import { DomainError } from './errors.js';
import { type Instant, utcDate } from './time.js';

export const announcementStatuses = ['DRAFT', 'PUBLISHED', 'ARCHIVED'] as const;
export type AnnouncementStatus = (typeof announcementStatuses)[number];

export interface AnnouncementWindow {
  status: AnnouncementStatus;
  publishFrom: Instant;
  publishUntil: Instant | null;
}

export function isAnnouncementLive(a: AnnouncementWindow, now: Instant): boolean {
  return a.status === 'PUBLISHED' && a.publishFrom <= now && (a.publishUntil === null || a.publishUntil > now);
}

/** Live announcements, newest first. */
export function liveAnnouncements<T extends AnnouncementWindow>(all: readonly T[], now: Instant): T[] {
  return all.filter((a) => isAnnouncementLive(a, now)).sort((a, b) => b.publishFrom - a.publishFrom);
}

export const publicationDate = (a: AnnouncementWindow): string => utcDate(a.publishFrom);

export function validateWindow(publishFrom: Instant, publishUntil: Instant | null): void {
  if (publishUntil !== null && publishUntil <= publishFrom) {
    throw new DomainError('VALIDATION_FAILED', 'publish_until must be later than publish_from', {
      errors: [{ field: 'publish_until', message: 'must be later than publish_from' }],
    });
  }
}

/** The stored announcement with the fields given laid over it; the resulting publication window is
 * checked as a whole (VALIDATION_FAILED), whichever fields changed. */
export function mergeAnnouncement<T extends AnnouncementWindow>(current: T, patch: Partial<T>): T {
  const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
  const next: T = { ...current, ...given };
  validateWindow(next.publishFrom, next.publishUntil);
  return next;
}
