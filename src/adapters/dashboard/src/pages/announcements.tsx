import { useMemo, useState } from 'preact/hooks';
import { appPath, del, get, patch, post, seg } from '../api.js';
import type { AppPageProps } from '../components/app-shell.js';
import { StatusBadge } from '../components/badge.js';
import { PagedTable, RowActions, RowButton } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Card, FormActions, SelectField, TextField } from '../components/fields.js';
import { runConfirmed, useAction, useLoad } from '../components/use-load.js';
import { formatDateTime, isoToLocalInput, localInputToIso } from '../format.js';
import { sanitizeAnnouncement } from '../sanitize.js';
import type { Announcement, AnnouncementStatus } from '../types.js';

const STATUSES: Array<[AnnouncementStatus, string]> = [
  ['DRAFT', 'Draft'],
  ['PUBLISHED', 'Published'],
  ['ARCHIVED', 'Archived'],
];

export function AnnouncementsPage({ app }: AppPageProps) {
  const list = useLoad(() => get<Announcement[]>(appPath(app.id, '/announcements')), [app.id]);
  const [editing, setEditing] = useState<Announcement | null>(null);
  const remove = useAction();

  const drop = (a: Announcement) =>
    runConfirmed(remove, { title: 'Delete this announcement?', message: `"${a.title}" is removed for every client.` }, async () => {
      await del(appPath(app.id, `/announcements/${seg(a.id)}`));
      if (editing?.id === a.id) setEditing(null);
      await list.reload();
    });

  return (
    <>
      <h1>Announcements</h1>
      <AnnouncementForm key={editing?.id ?? 'new'} appId={app.id} editing={editing} onSaved={() => (setEditing(null), void list.reload())} onCancel={() => setEditing(null)} />
      <Card title="Announcements">
        <ErrorBanner error={list.error ?? remove.error} />
        <PagedTable
          items={list.data}
          empty="No announcements."
          headers={['Title', 'Status', 'Shown from', 'Until', '']}
          row={(a) => (
            <tr key={a.id}>
              <td>{a.title}</td>
              <td>
                <StatusBadge status={a.status} />
              </td>
              <td>{formatDateTime(a.publish_from)}</td>
              <td>{a.publish_until ? formatDateTime(a.publish_until) : 'no end'}</td>
              <RowActions onDelete={() => void drop(a)}>
                <RowButton label="Edit" onClick={() => setEditing(a)} />
              </RowActions>
            </tr>
          )}
        />
      </Card>
    </>
  );
}

function AnnouncementForm({ appId, editing, onSaved, onCancel }: { appId: string; editing: Announcement | null; onSaved: () => void; onCancel: () => void }) {
  const [title, setTitle] = useState(editing?.title ?? '');
  const [html, setHtml] = useState(editing?.content_html ?? '');
  const [status, setStatus] = useState<AnnouncementStatus>(editing?.status ?? 'DRAFT');
  const [from, setFrom] = useState(isoToLocalInput(editing?.publish_from ?? new Date().toISOString()));
  const [until, setUntil] = useState(isoToLocalInput(editing?.publish_until ?? null));
  const preview = useMemo(() => sanitizeAnnouncement(html), [html]);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const body = { title: title.trim(), content_html: html, status, publish_from: localInputToIso(from), publish_until: until ? localInputToIso(until) : null };
      if (editing) await patch(appPath(appId, `/announcements/${seg(editing.id)}`), body);
      else await post(appPath(appId, '/announcements'), body.publish_until === null ? { ...body, publish_until: undefined } : body);
      onSaved();
    });
  };
  return (
    <Card title={editing ? `Edit "${editing.title}"` : 'New announcement'}>
      <form onSubmit={submit}>
        <ErrorBanner error={action.error} />
        <div class="form-row">
          <TextField label="Title" name="title" value={title} onInput={setTitle} required />
          <SelectField<AnnouncementStatus> label="Status" name="status" value={status} onChange={setStatus} options={STATUSES} />
          <TextField label="Shown from" name="publish_from" type="datetime-local" value={from} onInput={setFrom} required />
          <TextField label="Shown until" name="publish_until" type="datetime-local" value={until} onInput={setUntil} hint="optional" />
        </div>
        <div class="split">
          <label class="field">
            <span>Content (HTML)</span>
            <textarea name="content_html" rows={8} value={html} onInput={(e) => setHtml(e.currentTarget.value)} />
          </label>
          <div class="field">
            <span>Preview (sanitized)</span>
            {/* Only DOMPurify's output reaches the DOM: no scripts, handlers or javascript: URLs. */}
            <div class="preview" data-testid="announcement-preview" dangerouslySetInnerHTML={{ __html: preview }} />
          </div>
        </div>
        <FormActions label={editing ? 'Save' : 'Create announcement'} busy={action.busy} onCancel={editing ? onCancel : undefined} />
      </form>
    </Card>
  );
}
