// An event as its application's hash chain covers it (domain/audit-chain.ts): the fields of the
// API's AuditEntry, so an export can be checked by anyone with the same rules (docs/events.md).
import type { ChainedEntry } from '../../domain/audit-chain.js';
import { toIso } from '../../domain/time.js';
import type { EventRecord } from '../ports/event-store.js';

export const chainedEntryOf = (e: Omit<EventRecord, 'seq' | 'hash' | 'pos'>, seq: number): ChainedEntry => ({
  id: e.id,
  application_id: e.applicationId,
  seq,
  occurred_at: toIso(e.occurredAt),
  action: e.action,
  actor: e.actor,
  target: e.target,
  data: e.data,
  changes: e.changes,
  outcome: e.outcome,
});

// What an entry's seal covers: the row as its change wrote it, its facts unrendered; a row of
// facts says so, so its form cannot be changed unnoticed (docs/choices.md, "Events are data").
export const sealedEntryOf = (e: Omit<EventRecord, 'seq' | 'hash' | 'pos'>): Omit<ChainedEntry, 'seq'> & { data_form?: 'facts' } =>
  e.dataForm === 'facts' ? { ...chainedEntryOf(e, 0), data_form: 'facts' } : chainedEntryOf(e, 0);
