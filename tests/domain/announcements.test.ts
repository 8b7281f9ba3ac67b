import { describe, expect, it } from 'vitest';
import { announcementStatuses, isAnnouncementLive, liveAnnouncements, publicationDate, validateWindow, type AnnouncementWindow } from '../../src/domain/announcements.js';
import { expectValidationError } from './expect-domain-error.js';

const NOW = Date.UTC(2026, 5, 8, 12, 0, 0);
const HOUR = 3_600_000;

const published = (publishFrom: number, publishUntil: number | null = null): AnnouncementWindow => ({
  status: 'PUBLISHED',
  publishFrom,
  publishUntil,
});

describe('isAnnouncementLive', () => {
  it('only PUBLISHED announcements are live', () => {
    expect(announcementStatuses).toEqual(['DRAFT', 'PUBLISHED', 'ARCHIVED']);
    const window = { publishFrom: NOW - HOUR, publishUntil: null };
    expect(isAnnouncementLive({ ...window, status: 'PUBLISHED' }, NOW)).toBe(true);
    expect(isAnnouncementLive({ ...window, status: 'DRAFT' }, NOW)).toBe(false);
    expect(isAnnouncementLive({ ...window, status: 'ARCHIVED' }, NOW)).toBe(false);
  });

  it('publish_from is inclusive', () => {
    expect(isAnnouncementLive(published(NOW), NOW - 1)).toBe(false);
    expect(isAnnouncementLive(published(NOW), NOW)).toBe(true);
    expect(isAnnouncementLive(published(NOW), NOW + 1)).toBe(true);
  });

  it('publish_until is exclusive', () => {
    const a = published(NOW - HOUR, NOW);
    expect(isAnnouncementLive(a, NOW - 1)).toBe(true);
    expect(isAnnouncementLive(a, NOW)).toBe(false);
    expect(isAnnouncementLive(a, NOW + 1)).toBe(false);
  });

  it('a null publish_until never ends', () => {
    expect(isAnnouncementLive(published(NOW - HOUR, null), NOW + 10_000 * HOUR)).toBe(true);
  });

  it('a draft or archived announcement is not live even inside its window', () => {
    expect(isAnnouncementLive({ status: 'DRAFT', publishFrom: NOW, publishUntil: NOW + HOUR }, NOW)).toBe(false);
    expect(isAnnouncementLive({ status: 'ARCHIVED', publishFrom: NOW, publishUntil: NOW + HOUR }, NOW)).toBe(false);
  });
});

describe('liveAnnouncements', () => {
  it('keeps only live ones, newest publish_from first, with their own fields', () => {
    const all = [
      { id: 'old', ...published(NOW - 3 * HOUR) },
      { id: 'draft', status: 'DRAFT' as const, publishFrom: NOW - HOUR, publishUntil: null },
      { id: 'newest', ...published(NOW - HOUR) },
      { id: 'future', ...published(NOW + HOUR) },
      { id: 'ended', ...published(NOW - 5 * HOUR, NOW) },
      { id: 'middle', ...published(NOW - 2 * HOUR, NOW + HOUR) },
      { id: 'archived', status: 'ARCHIVED' as const, publishFrom: NOW - 30 * 60_000, publishUntil: null },
    ];
    const snapshot = all.map((a) => a.id);
    expect(liveAnnouncements(all, NOW).map((a) => a.id)).toEqual(['newest', 'middle', 'old']);
    expect(all.map((a) => a.id)).toEqual(snapshot); // input untouched
  });

  it('the set changes as time passes', () => {
    const all = [
      { id: 'a', ...published(NOW, NOW + HOUR) },
      { id: 'b', ...published(NOW + HOUR) },
    ];
    expect(liveAnnouncements(all, NOW - 1).map((a) => a.id)).toEqual([]);
    expect(liveAnnouncements(all, NOW).map((a) => a.id)).toEqual(['a']);
    expect(liveAnnouncements(all, NOW + HOUR).map((a) => a.id)).toEqual(['b']);
  });

  it('an empty list stays empty', () => {
    expect(liveAnnouncements([], NOW)).toEqual([]);
  });
});

describe('publicationDate', () => {
  it('is the UTC date of publish_from', () => {
    expect(publicationDate(published(NOW))).toBe('2026-06-08');
    expect(publicationDate(published(Date.UTC(2026, 5, 8, 23, 59, 59, 999)))).toBe('2026-06-08');
    expect(publicationDate(published(Date.UTC(2026, 5, 9, 0, 0, 0, 0)))).toBe('2026-06-09');
    expect(publicationDate(published(Date.UTC(2024, 1, 29, 6)))).toBe('2024-02-29');
  });
});

describe('validateWindow', () => {
  it('accepts an open window or one that ends after it starts', () => {
    expect(() => validateWindow(NOW, null)).not.toThrow();
    expect(() => validateWindow(NOW, NOW + 1)).not.toThrow();
  });

  it('rejects an end at or before the start', () => {
    expectValidationError(() => validateWindow(NOW, NOW), 'publish_until');
    expectValidationError(() => validateWindow(NOW, NOW - HOUR), 'publish_until');
  });
});
