// The audit log under a set of filters, newest first, a page of the dashboard's size at a time
// ("Load more" follows the API's cursor), each row opening onto the fields it changed. The Activity page and a user's
// History section both show it (docs/api.md, Audit log).
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { appPath, get } from '../api.js';
import { actorLabel, actorName, actorTypeName, auditQuery, changeRows, targetLabel, type AuditFilters, type AuditNames } from '../audit.js';
import { formatDateTime } from '../format.js';
import type { AuditEntry, AuditPage } from '../types.js';
import { Badge } from './badge.js';
import { DataTable } from './data-table.js';
import { ErrorBanner } from './error-banner.js';
import { Empty } from './fields.js';
import { PAGE_SIZE } from './pager.js';
import { useAction, useLoad } from './use-load.js';

export function AuditLog({ appId, filters, empty }: { appId: string; filters: AuditFilters; empty: string }) {
  const path = appPath(appId, '/audit');
  const key = auditQuery(filters, { limit: PAGE_SIZE });
  const first = useLoad(() => get<AuditPage>(path + key), [path, key]);
  // Pages after the first, kept with the first page they follow: new filters start over.
  const [more, setMore] = useState<{ after: AuditPage; pages: AuditPage[] } | null>(null);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const loadMore = useAction();
  const pages = first.data ? [first.data, ...(more?.after === first.data ? more.pages : [])] : [];
  const entries = pages.flatMap((p) => p.entries);
  const names: AuditNames = Object.assign({}, ...pages.map((p) => p.names)) as AuditNames;
  const cursor = pages.length ? pages[pages.length - 1]!.next_cursor : null;

  const next = () =>
    void loadMore.run(async () => {
      const head = first.data;
      if (!head || !cursor) return;
      const page = await get<AuditPage>(path + auditQuery(filters, { limit: PAGE_SIZE, cursor }));
      setMore((m) => ({ after: head, pages: [...(m?.after === head ? m.pages : []), page] }));
    });
  const toggle = (id: string) => {
    const shown = new Set(open);
    if (shown.has(id)) shown.delete(id);
    else shown.add(id);
    setOpen(shown);
  };

  return (
    <>
      <ErrorBanner error={first.error ?? loadMore.error} />
      {first.data && entries.length === 0 && <Empty>{empty}</Empty>}
      {entries.length > 0 && (
        <DataTable headers={['Time', 'Action', 'Actor', 'Target', 'Outcome', '']}>
          {entries.map((e) => (
            <Fragment key={e.id}>
              <tr data-audit-entry={e.id} data-action={e.action}>
                <td>{formatDateTime(e.occurred_at)}</td>
                <td class="mono nowrap">{e.action}</td>
                <td title={actorLabel(e.actor, names)}>
                  {actorTypeName(e.actor.type)}
                  {(e.actor.id || e.actor.ip) && <span class="muted small actor-detail">{[actorName(e.actor, names), e.actor.ip].filter(Boolean).join(' · ')}</span>}
                </td>
                <td>
                  <span class={e.target.type === 'license' && !e.target.label && names[e.target.id] ? 'mono' : undefined}>{targetLabel(e.target, names)}</span>
                  <span class="muted small"> {e.target.type}</span>
                </td>
                <td>
                  <OutcomeBadge outcome={e.outcome} />
                </td>
                <td class="row-actions">
                  <button type="button" class="btn btn-small" aria-expanded={open.has(e.id)} aria-controls={`audit-${e.id}`} onClick={() => toggle(e.id)}>
                    {open.has(e.id) ? 'Hide details' : 'Details'}
                  </button>
                </td>
              </tr>
              {open.has(e.id) && (
                <tr id={`audit-${e.id}`} class="detail-row">
                  <td colSpan={6}>
                    <EntryDetails entry={e} names={names} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </DataTable>
      )}
      {cursor && (
        <div class="actions actions-start">
          <button type="button" class="btn" disabled={loadMore.busy} onClick={next}>
            Load more
          </button>
        </div>
      )}
    </>
  );
}

function OutcomeBadge({ outcome }: { outcome: string }) {
  return <Badge tone={outcome === 'success' ? 'green' : 'red'}>{outcome}</Badge>;
}

function EntryDetails({ entry, names }: { entry: AuditEntry; names: AuditNames }) {
  const rows = changeRows(entry.changes);
  return (
    <div class="detail">
      {rows.length === 0 ? (
        <p class="muted">No field changes recorded.</p>
      ) : (
        <table class="changes">
          <thead>
            <tr>
              <th>Field</th>
              <th>Before</th>
              <th>After</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([field, before, after]) => (
              <tr key={field}>
                <td class="mono">{field}</td>
                <td class="mono cell-value">{before}</td>
                <td class="mono cell-value">{after}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <dl class="facts">
        <dt>Target</dt>
        <dd class="mono">
          {entry.target.type} {entry.target.id}
          {names[entry.target.id] && ` (${names[entry.target.id]})`}
        </dd>
        {entry.actor.id && (
          <>
            <dt>Actor id</dt>
            <dd class="mono">{entry.actor.id}</dd>
          </>
        )}
        <dt>Entry id</dt>
        <dd class="mono">{entry.id}</dd>
      </dl>
    </div>
  );
}
