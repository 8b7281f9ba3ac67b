// The application's audit log: who did what, filtered, newest first, and exported whole as NDJSON
// (docs/api.md, Audit log).
import { useState } from 'preact/hooks';
import { appPath } from '../api.js';
import { ACTOR_TYPES, auditQuery, type AuditFilters } from '../audit.js';
import type { AppPageProps } from '../components/app-shell.js';
import { AuditLog } from '../components/audit-log.js';
import { Card, SelectField, TextField } from '../components/fields.js';
import { localInputToIso } from '../format.js';
import type { ActorType } from '../types.js';
import { WEBHOOK_EVENTS } from '../webhooks.js';

/** Target kinds offered as suggestions; the field takes any. */
const TARGET_TYPES = ['application', 'user', 'license', 'ban', 'device', 'session', 'file', 'variable', 'announcement', 'webhook'];

interface Draft {
  action: string;
  actor_type: ActorType | '';
  target_type: string;
  since: string;
  until: string;
}

const NONE: Draft = { action: '', actor_type: '', target_type: '', since: '', until: '' };

function toFilters(d: Draft): AuditFilters {
  return {
    action: d.action,
    actor_type: d.actor_type,
    target_type: d.target_type,
    ...(d.since ? { since: localInputToIso(d.since) } : {}),
    ...(d.until ? { until: localInputToIso(d.until) } : {}),
  };
}

export function ActivityPage({ app }: AppPageProps) {
  const [draft, setDraft] = useState<Draft>(NONE);
  const [filters, setFilters] = useState<AuditFilters>({});
  const set =
    <K extends keyof Draft>(key: K) =>
    (value: Draft[K]) =>
      setDraft({ ...draft, [key]: value });
  const apply = (e: Event) => {
    e.preventDefault();
    setFilters(toFilters(draft));
  };
  const clear = () => {
    setDraft(NONE);
    setFilters({});
  };
  const exportHref = `/api/console${appPath(app.id, '/audit.ndjson')}${auditQuery(filters)}`;

  return (
    <>
      <h1>Activity</h1>
      <Card
        title="Audit log"
        actions={
          <a class="btn btn-small" href={exportHref} download={`audit-${app.id}.ndjson`}>
            Export
          </a>
        }
      >
        <form class="toolbar filters" onSubmit={apply} role="search" aria-label="Filter the audit log">
          <label class="field">
            <span>Action</span>
            <input name="action" list="audit-actions" value={draft.action} onInput={(e) => set('action')(e.currentTarget.value)} placeholder="e.g. user.created" />
            <datalist id="audit-actions">
              {['owner.signed_in', ...WEBHOOK_EVENTS].map((a) => (
                <option key={a} value={a} />
              ))}
            </datalist>
          </label>
          <SelectField<ActorType | ''> label="Actor" name="actor_type" value={draft.actor_type} onChange={set('actor_type')} options={[['', 'Anyone'], ...ACTOR_TYPES]} />
          <label class="field">
            <span>Target type</span>
            <input name="target_type" list="audit-target-types" value={draft.target_type} onInput={(e) => set('target_type')(e.currentTarget.value)} placeholder="e.g. user" />
            <datalist id="audit-target-types">
              {TARGET_TYPES.map((t) => (
                <option key={t} value={t} />
              ))}
            </datalist>
          </label>
          <TextField label="From" name="since" type="datetime-local" value={draft.since} onInput={set('since')} />
          <TextField label="Until" name="until" type="datetime-local" value={draft.until} onInput={set('until')} />
          <div class="actions">
            <button type="button" class="btn" onClick={clear}>
              Clear
            </button>
            <button type="submit" class="btn btn-primary">
              Apply filters
            </button>
          </div>
        </form>
        <AuditLog appId={app.id} filters={filters} empty={Object.values(filters).some(Boolean) ? 'No entries match.' : 'Nothing has happened yet.'} />
      </Card>
    </>
  );
}
