// What an owner publishes to an application's users: variables and announcements.
// Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { Actor } from '../events/actor.js';
import type { Instant } from '../../domain/time.js';
import type { AnnouncementRecord, VariableRecord } from '../records.js';

/** The fields of an announcement an owner can change. */
export type AnnouncementPatch = Partial<Pick<AnnouncementRecord, 'title' | 'contentHtml' | 'status' | 'publishFrom' | 'publishUntil'>>;

export interface ContentStore {
  putVariable(variable: VariableRecord, now: Instant, actor: Actor): Promise<VariableRecord>;
  /** By name. */
  listVariables(applicationId: string): Promise<VariableRecord[]>;
  deleteVariable(applicationId: string, name: string, now: Instant, actor: Actor): Promise<boolean>;
  createAnnouncement(a: AnnouncementRecord, actor: Actor): Promise<void>;
  /** ATOMIC: lays the fields given over the stored announcement (mergeAnnouncement of the domain),
   * so concurrent patches of different fields all hold. Null when there is no such announcement. */
  patchAnnouncement(applicationId: string, id: string, patch: AnnouncementPatch, now: Instant, actor: Actor): Promise<AnnouncementRecord | null>;
  findAnnouncement(applicationId: string, id: string): Promise<AnnouncementRecord | null>;
  /** Newest publish_from first. */
  listAnnouncements(applicationId: string): Promise<AnnouncementRecord[]>;
  deleteAnnouncement(applicationId: string, id: string, now: Instant, actor: Actor): Promise<boolean>;
}
