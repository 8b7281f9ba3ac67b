// An endpoint's deliveries, newest first: each event's state and, opened, every attempt (time,
// status, latency, error, the first 2 KB of the answer), with Redeliver (docs/api.md, Webhooks).
import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { appPath, get, post, seg } from '../api.js';
import { formatDateTime } from '../format.js';
import type { WebhookDelivery, WebhookEndpoint } from '../types.js';
import { attemptOutcome, formatLatency } from '../webhooks.js';
import { Badge, type Tone } from './badge.js';
import { DataTable } from './data-table.js';
import { ErrorBanner } from './error-banner.js';
import { Card, Empty } from './fields.js';
import { useAction, useLoad } from './use-load.js';

/** How often the list refreshes while a delivery is still pending. */
const POLL_MS = 1000;
/** After a test event or a redelivery, how long the list keeps refreshing even with nothing pending:
 * the delivery it caused may not be listed at once. */
const WATCH_MS = 10_000;

const STATE_TONES: Record<WebhookDelivery['state'], Tone> = { pending: 'amber', succeeded: 'green', failed: 'red' };

interface Props {
  appId: string;
  endpoint: WebhookEndpoint;
  /** Bumped after a test event: the list loads again and watches for the delivery. */
  refresh: number;
  /** A delivery settled or was attempted again: the endpoint's own state (failing, disabled by a 410) may have changed. */
  onAttempted: () => void;
  onClose: () => void;
}

export function WebhookDeliveries({ appId, endpoint, refresh, onAttempted, onClose }: Props) {
  const path = appPath(appId, `/webhooks/${seg(endpoint.id)}/deliveries`);
  const deliveries = useLoad(() => get<WebhookDelivery[]>(path), [path, refresh]);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const action = useAction();
  const pending = (deliveries.data ?? []).some((d) => d.state === 'pending');
  const [watchUntil, setWatchUntil] = useState(0);
  useEffect(() => {
    if (refresh > 0) setWatchUntil(Date.now() + WATCH_MS);
  }, [refresh]);

  const attempts = (deliveries.data ?? []).map((d) => `${d.id} ${d.state} ${d.attempts.length}`).join();
  useEffect(() => {
    if (deliveries.data) onAttempted();
  }, [attempts]);

  useEffect(() => {
    if (!pending && Date.now() > watchUntil) return;
    const timer = setTimeout(() => void deliveries.reload(), POLL_MS);
    return () => clearTimeout(timer);
  }, [pending, watchUntil, deliveries.data]);

  const toggle = (id: string) => {
    const shown = new Set(open);
    if (shown.has(id)) shown.delete(id);
    else shown.add(id);
    setOpen(shown);
  };
  const redeliver = (d: WebhookDelivery) =>
    void action.run(async () => {
      await post(`${path}/${seg(d.id)}/redeliver`);
      setWatchUntil(Date.now() + WATCH_MS);
      await deliveries.reload();
    });

  return (
    <Card
      title={`Deliveries to ${endpoint.url}`}
      actions={
        <>
          <button type="button" class="btn btn-small" onClick={() => void deliveries.reload()}>
            Refresh
          </button>{' '}
          <button type="button" class="btn btn-small" onClick={onClose}>
            Close
          </button>
        </>
      }
    >
      <ErrorBanner error={deliveries.error ?? action.error} />
      {deliveries.data && deliveries.data.length === 0 && <Empty>No deliveries yet.</Empty>}
      {deliveries.data && deliveries.data.length > 0 && (
        <DataTable headers={['Event', 'State', 'Attempts', 'Created', 'Next attempt', '']}>
          {deliveries.data.map((d) => (
            <Fragment key={d.id}>
              <tr data-delivery={d.id} data-event-type={d.event_type}>
                <td class="mono">{d.event_type}</td>
                <td data-testid="delivery-state">
                  <Badge tone={STATE_TONES[d.state]}>{d.state}</Badge>
                </td>
                <td>
                  {d.attempts.length}
                  {d.attempts.length > 0 && <span class="muted small"> last: {attemptOutcome(d.attempts[d.attempts.length - 1]!)}</span>}
                </td>
                <td>{formatDateTime(d.created_at)}</td>
                <td>{d.next_attempt_at ? formatDateTime(d.next_attempt_at) : '—'}</td>
                <td class="row-actions">
                  <button type="button" class="btn btn-small" aria-expanded={open.has(d.id)} aria-controls={`delivery-${d.id}`} onClick={() => toggle(d.id)}>
                    {open.has(d.id) ? 'Hide attempts' : 'Attempts'}
                  </button>
                  <button type="button" class="btn btn-small" disabled={action.busy} onClick={() => redeliver(d)}>
                    Redeliver
                  </button>
                </td>
              </tr>
              {open.has(d.id) && (
                <tr id={`delivery-${d.id}`} class="detail-row">
                  <td colSpan={6}>
                    <Attempts delivery={d} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </DataTable>
      )}
    </Card>
  );
}

function Attempts({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attempts.length === 0) return <p class="muted">Not attempted yet.</p>;
  return (
    <ol class="attempts">
      {delivery.attempts.map((a, i) => (
        <li key={i} class="attempt">
          <dl class="facts">
            <dt>Time</dt>
            <dd>{formatDateTime(a.attempted_at)}</dd>
            <dt>Status</dt>
            <dd data-testid="attempt-status">{a.status_code ?? 'no answer'}</dd>
            <dt>Latency</dt>
            <dd>{formatLatency(a.latency_ms)}</dd>
            {a.error && (
              <>
                <dt>Error</dt>
                <dd class="error-text">{a.error}</dd>
              </>
            )}
          </dl>
          {a.response_body !== null && a.response_body !== '' && (
            <>
              <span class="muted small">Answer (first 2 KB)</span>
              <pre class="codes answer" data-testid="attempt-answer">
                {a.response_body}
              </pre>
            </>
          )}
        </li>
      ))}
    </ol>
  );
}
