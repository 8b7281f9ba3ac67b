// The audit log of an application, for its owner (docs/api.md, Audit log): pages newest first
// behind an opaque cursor, and the export. There is no delete (docs/events.md).
import { DomainError, validationError } from '../../domain/errors.js';
import type { SignedAuditHead } from '../../signing/audit-head.js';
import { type AuditHeadDeps, signAuditHead } from '../events/audit-head.js';
import type { Deps } from '../deps.js';
import type { ApplicationStore } from '../ports/application-store.js';
import { shownEvent } from '../ports/event-renderer.js';
import type { EventFilter, EventRecord, EventStore } from '../ports/event-store.js';
import type { OwnerRecord } from '../records.js';
import { ownedApplication } from './applications.js';
import { auditNames, type AuditNamesDeps } from './audit-names.js';

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;
/** Rows the export reads per store call. */
const EXPORT_BATCH = 500;

type AuditDeps = Pick<Deps, 'renderEvent'> & { store: ApplicationStore & Pick<EventStore, 'listEvents'> };

/** The cursor a page hands out: where the next page starts (the last entry's insertion order), opaque to callers. */
const encodeCursor = (pos: number) => Buffer.from(`pos:${pos}`, 'utf8').toString('base64url');

function decodeCursor(cursor: string): number {
  const m = /^pos:([0-9]{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (m === null) throw validationError('cursor', 'is not a cursor this log handed out');
  return Number(m[1]);
}

export interface AuditPageResult {
  entries: EventRecord[];
  nextCursor: string | null;
  /** What the entries' user and license ids stand for (audit-names.ts). */
  names: Record<string, string>;
}

export async function auditPage(deps: AuditDeps & AuditNamesDeps, owner: OwnerRecord, appId: string, filter: EventFilter, page: { cursor?: string; limit?: number }): Promise<AuditPageResult> {
  const app = await ownedApplication(deps, owner, appId);
  const limit = page.limit ?? AUDIT_PAGE_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX) throw validationError('limit', `must be from 1 to ${AUDIT_PAGE_MAX}`);
  const beforePos = page.cursor === undefined ? undefined : decodeCursor(page.cursor);
  // One more than asked tells whether there is a next page.
  const rows = await deps.store.listEvents(app.id, filter, { limit: limit + 1, ...(beforePos === undefined ? {} : { beforePos }) });
  // Shown as the API answers them (docs/choices.md, "Events are data").
  const entries = rows.slice(0, limit).map((e) => shownEvent(deps.renderEvent, e));
  return { entries, nextCursor: rows.length > limit ? encodeCursor(entries.at(-1)!.pos) : null, names: await auditNames(deps, owner, app.id, entries) };
}

// Every matching entry, newest first, read in batches as the caller consumes them. The
// application is checked before the first read, so a refusal comes before any answer starts.
export async function auditExport(deps: AuditDeps, owner: OwnerRecord, appId: string, filter: EventFilter): Promise<AsyncIterable<EventRecord>> {
  const app = await ownedApplication(deps, owner, appId);
  return (async function* () {
    let beforePos: number | undefined;
    for (;;) {
      const rows = await deps.store.listEvents(app.id, filter, { limit: EXPORT_BATCH, ...(beforePos === undefined ? {} : { beforePos }) });
      yield* rows.map((e) => shownEvent(deps.renderEvent, e));
      if (rows.length < EXPORT_BATCH) return;
      beforePos = rows.at(-1)!.pos;
    }
  })();
}

/** The application's chain head signed now, for its owner to keep elsewhere (docs/events.md, Anchoring the chain). */
export async function exportAuditHead(deps: AuditHeadDeps & AuditDeps, owner: OwnerRecord, appId: string): Promise<SignedAuditHead> {
  const app = await ownedApplication(deps, owner, appId);
  const head = await signAuditHead(deps, app.id);
  if (head === null) throw new DomainError('NOT_FOUND', 'the audit chain is empty: nothing to export yet');
  return head;
}
