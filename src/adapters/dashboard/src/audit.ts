// The audit log as the dashboard asks for it and shows it (docs/api.md, Audit log): the query of
// a page under the chosen filters, and how an entry's actor and changed values read.
import type { ActorType, AuditEntry } from './types.js';

export interface AuditFilters {
  action?: string;
  actor_type?: ActorType | '';
  target_type?: string;
  target_id?: string;
  /** ISO instants. */
  since?: string;
  until?: string;
}

export const ACTOR_TYPES: Array<[ActorType, string]> = [
  ['owner', 'Owner'],
  ['admin_key', 'Admin API key'],
  ['end_user', 'End user'],
  ['system', 'System'],
];

const FILTER_KEYS = ['action', 'actor_type', 'target_type', 'target_id', 'since', 'until'] as const;

/** Names the API matches exactly and only in lower case (actions, target types). */
const LOWER_CASE: ReadonlySet<string> = new Set(['action', 'target_type']);

/** The query string of a page (`?…`, or '' with nothing to say): empty filters are left out, names in
 * lower case, then the page size and the cursor when given. */
export function auditQuery(filters: AuditFilters, page: { limit?: number; cursor?: string | null } = {}): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filters[key]?.trim();
    if (value) params.set(key, LOWER_CASE.has(key) ? value.toLowerCase() : value);
  }
  if (page.limit !== undefined) params.set('limit', String(page.limit));
  if (page.cursor) params.set('cursor', page.cursor);
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function actorTypeName(type: ActorType): string {
  return ACTOR_TYPES.find(([t]) => t === type)?.[1] ?? type;
}

/** What the page's ids stand for (the audit page's `names`: usernames, license codes, the owner's email). */
export type AuditNames = Readonly<Record<string, string>>;

/** Who acted, by name where the page names them: the kind's name alone when there is none. */
export function actorName(actor: AuditEntry['actor'], names: AuditNames = {}): string | null {
  return actor.id === null ? null : (names[actor.id] ?? actor.id);
}

/** Who acted, in one line: the kind, then its name (else id) and address when known. */
export function actorLabel(actor: AuditEntry['actor'], names: AuditNames = {}): string {
  return [actorTypeName(actor.type), actorName(actor, names), actor.ip && `from ${actor.ip}`].filter(Boolean).join(' ');
}

/** What the target is called: its recorded label, else its name on the page (a license's code), else its type and id. */
export function targetLabel(target: AuditEntry['target'], names: AuditNames = {}): string {
  return target.label ?? names[target.id] ?? `${target.type} ${target.id}`;
}

/** One side of a change as text: nothing is a dash, text as it is, anything else as JSON. */
export function changeValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}

/** An entry's changes as rows of field, before and after (none when it recorded none). */
export function changeRows(changes: AuditEntry['changes']): Array<[string, string, string]> {
  return Object.entries(changes ?? {}).map(([field, [before, after]]) => [field, changeValue(before), changeValue(after)]);
}
