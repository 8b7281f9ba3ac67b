// An application's webhook endpoints (docs/api.md, Webhooks): add one (its signing secret shown
// once), see which are failing, enable or disable, edit, rotate the secret, send a test event,
// and follow each endpoint's deliveries.
import { useState } from 'preact/hooks';
import { appPath, del, get, patch, post, seg } from '../api.js';
import type { AppPageProps } from '../components/app-shell.js';
import { Badge } from '../components/badge.js';
import { SecretsOnce } from '../components/copy-button.js';
import { DataTable, RowActions, RowButton } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Card, Empty, FormActions, TextField } from '../components/fields.js';
import { runConfirmed, useAction, useLoad } from '../components/use-load.js';
import { WebhookDeliveries } from '../components/webhook-deliveries.js';
import { EventsField, eventsChoice, type EventsChoice } from '../components/webhook-events.js';
import { formatDateTime } from '../format.js';
import type { WebhookEndpoint, WebhookWithSecret } from '../types.js';
import { describeEvents, endpointHealth, eventsBody, needsAttention } from '../webhooks.js';

const SECRET_NOTE = 'Your receiver verifies each delivery with it (Standard Webhooks); a lost secret can be rotated here.';

export function WebhooksPage({ app }: AppPageProps) {
  const listPath = appPath(app.id, '/webhooks');
  const endpoints = useLoad(() => get<WebhookEndpoint[]>(listPath), [listPath]);
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);
  const [editing, setEditing] = useState<WebhookEndpoint | null>(null);
  const [watching, setWatching] = useState<string | null>(null);
  /** Bumped to make the open deliveries list load again (after a test event). */
  const [refresh, setRefresh] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction();
  const one = (e: WebhookEndpoint, rest = '') => `${listPath}/${seg(e.id)}${rest}`;
  const list = endpoints.data ?? [];
  const failing = list.filter(needsAttention);
  const watched = list.find((e) => e.id === watching) ?? null;

  const setEnabled = (e: WebhookEndpoint, enabled: boolean) =>
    void action.run(async () => {
      setNotice(null);
      await patch(one(e), { enabled });
      await endpoints.reload();
    });
  const sendTest = (e: WebhookEndpoint) =>
    void action.run(async () => {
      setNotice(null);
      await post(one(e, '/test'));
      setNotice(`A webhook.test event is on its way to ${e.url}.`);
      setWatching(e.id);
      setRefresh((n) => n + 1);
    });
  const rotate = (e: WebhookEndpoint) =>
    runConfirmed(action, { title: 'Rotate the signing secret?', message: `${e.url} is sent signatures under the new secret; update your receiver with it.`, label: 'Rotate' }, async () => {
      setNotice(null);
      const rotated = await post<WebhookWithSecret>(one(e, '/rotate_secret'));
      setSecret({ title: `New signing secret for ${rotated.endpoint.url}`, value: rotated.secret });
      await endpoints.reload();
    });
  const remove = (e: WebhookEndpoint) =>
    runConfirmed(action, { title: 'Delete this endpoint?', message: `${e.url} receives no more events, and its deliveries are deleted.` }, async () => {
      setNotice(null);
      await del(one(e));
      if (watching === e.id) setWatching(null);
      if (editing?.id === e.id) setEditing(null);
      await endpoints.reload();
    });

  return (
    <>
      <h1>Webhooks</h1>
      {failing.length > 0 && (
        <div class="banner banner-error" role="alert" data-testid="failing-endpoints">
          <strong>{failing.length === 1 ? 'An endpoint is not receiving events:' : `${failing.length} endpoints are not receiving events:`}</strong>
          <ul>
            {failing.map((e) => {
              const health = endpointHealth(e, formatDateTime);
              return (
                <li key={e.id}>
                  <span class="mono">{e.url}</span> — {(health.state !== 'ok' && health.message) || 'not receiving events'}
                </li>
              );
            })}
          </ul>
        </div>
      )}
      {secret ? (
        <SecretsOnce title={secret.title} secrets={{ webhook_secret: secret.value }} note={SECRET_NOTE} onDone={() => setSecret(null)} />
      ) : editing ? (
        <Card title={`Edit ${editing.url}`}>
          <EndpointForm
            key={editing.id}
            editing={editing}
            onSubmit={async (body) => {
              await patch(one(editing), body);
              setEditing(null);
              await endpoints.reload();
            }}
            onCancel={() => setEditing(null)}
          />
        </Card>
      ) : (
        <Card title="Add an endpoint">
          <EndpointForm
            onSubmit={async (body) => {
              const created = await post<WebhookWithSecret>(listPath, body);
              setSecret({ title: `Signing secret for ${created.endpoint.url}`, value: created.secret });
              await endpoints.reload();
            }}
          />
        </Card>
      )}
      <Card title="Endpoints">
        <ErrorBanner error={endpoints.error ?? action.error} />
        {notice && (
          <div class="banner banner-success" role="status">
            {notice}
          </div>
        )}
        {endpoints.data && list.length === 0 && <Empty>No endpoints yet.</Empty>}
        {list.length > 0 && (
          <DataTable headers={['URL', 'Events', 'Status', '']}>
            {list.map((e) => {
              const health = endpointHealth(e, formatDateTime);
              return (
                <tr key={e.id} data-endpoint={e.url}>
                  <td>
                    <span class="mono">{e.url}</span>
                    {e.description && <span class="muted small"> {e.description}</span>}
                  </td>
                  <td class="cell-value">{describeEvents(e.events)}</td>
                  <td data-testid="endpoint-status">
                    {health.state === 'ok' && <Badge tone="green">enabled</Badge>}
                    {health.state === 'disabled' && <Badge tone="grey">disabled</Badge>}
                    {health.state === 'failing' && <Badge tone="red">failing</Badge>}
                    {health.state !== 'ok' && health.message && <span class="error-text small">{health.message}</span>}
                  </td>
                  <RowActions onDelete={() => void remove(e)}>
                    <button type="button" class="btn btn-small" aria-pressed={watching === e.id} onClick={() => setWatching(watching === e.id ? null : e.id)}>
                      Deliveries
                    </button>
                    <RowButton label="Send test" onClick={() => sendTest(e)} />
                    <RowButton label="Edit" onClick={() => (setSecret(null), setEditing(e))} />
                    <RowButton label={e.enabled ? 'Disable' : 'Enable'} onClick={() => setEnabled(e, !e.enabled)} />
                    <RowButton label="Rotate secret" onClick={() => void rotate(e)} />
                  </RowActions>
                </tr>
              );
            })}
          </DataTable>
        )}
      </Card>
      {watched && <WebhookDeliveries key={watched.id} appId={app.id} endpoint={watched} refresh={refresh} onAttempted={() => void endpoints.reload()} onClose={() => setWatching(null)} />}
    </>
  );
}

interface EndpointBody {
  url: string;
  events: string[];
  description?: string;
}

/** A new endpoint (URL, events, description), or an existing one's URL and events. */
function EndpointForm({ editing, onSubmit, onCancel }: { editing?: WebhookEndpoint; onSubmit: (body: EndpointBody) => Promise<void>; onCancel?: () => void }) {
  const [url, setUrl] = useState(editing?.url ?? '');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<EventsChoice>(editing ? eventsChoice(editing.events) : { all: true, chosen: new Set() });
  const action = useAction();
  const none = !events.all && events.chosen.size === 0;
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const body: EndpointBody = { url: url.trim(), events: eventsBody(events.all, events.chosen) };
      if (!editing && description.trim()) body.description = description.trim();
      await onSubmit(body);
    });
  };
  return (
    <form onSubmit={submit}>
      <ErrorBanner error={action.error} />
      <div class="form-row">
        <TextField label="URL" name="url" type="text" value={url} onInput={setUrl} required placeholder="https://example.com/hooks/gatehouse" hint="Where each event is POSTed, as JSON." />
        {!editing && <TextField label="Description" name="description" value={description} onInput={setDescription} placeholder="optional" />}
      </div>
      <EventsField value={events} onChange={setEvents} />
      {none && <p class="muted small">Choose at least one event.</p>}
      <FormActions label={editing ? 'Save endpoint' : 'Add endpoint'} busy={action.busy} disabled={none} onCancel={onCancel} />
    </form>
  );
}
