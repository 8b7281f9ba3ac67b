import { useMemo, useState } from 'preact/hooks';
import { appPath, del, get, post, seg } from '../api.js';
import type { AppPageProps } from '../components/app-shell.js';
import { Badge } from '../components/badge.js';
import { CopyButton } from '../components/copy-button.js';
import { PagedTable, RowActions } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Card, CheckField, FormActions, SelectField, TextField } from '../components/fields.js';
import { Link } from '../components/link.js';
import { runConfirmed, useAction, useLoad } from '../components/use-load.js';
import { toCsv } from '../csv.js';
import { downloadText } from '../download.js';
import { DURATION_UNIT_OPTIONS, DURATION_UNITS, formatDateTime, formatMinutes, type DurationUnit } from '../format.js';
import { userHref } from '../router.js';
import type { License } from '../types.js';

type Filter = 'all' | 'unused' | 'used';

export function LicensesPage({ app }: AppPageProps) {
  const [filter, setFilter] = useState<Filter>('all');
  const [search, setSearch] = useState('');
  const list = useLoad(() => get<License[]>(appPath(app.id, `/licenses${filter === 'all' ? '' : `?status=${filter}`}`)), [app.id, filter]);
  const [fresh, setFresh] = useState<License[]>([]);
  const action = useAction();

  const shown = useMemo(() => {
    const q = search.trim().toLowerCase();
    return (list.data ?? []).filter((l) => !q || l.code.toLowerCase().includes(q) || (l.note ?? '').toLowerCase().includes(q));
  }, [list.data, search]);

  const remove = (license: License) =>
    runConfirmed(action, { title: 'Delete this license?', message: `${license.code} will no longer be redeemable.` }, async () => {
      await del(appPath(app.id, `/licenses/${seg(license.code)}`));
      await list.reload();
    });

  const exportCsv = () =>
    downloadText(
      `licenses-${app.name.replace(/[^\w.-]+/g, '_')}.csv`,
      toCsv(
        ['code', 'duration', 'minutes', 'note', 'created_at', 'used_at', 'used_by_user_id', 'banned'],
        shown.map((l) => [l.code, formatMinutes(l.minutes), l.minutes ?? 'lifetime', l.note ?? '', l.created_at, l.used_at ?? '', l.used_by_user_id ?? '', l.banned]),
      ),
    );

  return (
    <>
      <h1>Licenses</h1>
      <GenerateLicenses appId={app.id} onCreated={(created) => (setFresh(created), void list.reload())} />
      {fresh.length > 0 && <FreshLicenses licenses={fresh} onDone={() => setFresh([])} />}
      <Card
        title="All licenses"
        actions={
          <button type="button" class="btn btn-small" onClick={exportCsv} disabled={shown.length === 0}>
            Export CSV
          </button>
        }
      >
        <div class="toolbar">
          <SelectField<Filter>
            label="Show"
            name="status"
            value={filter}
            onChange={setFilter}
            options={[
              ['all', 'All'],
              ['unused', 'Unused'],
              ['used', 'Used'],
            ]}
          />
          <TextField label="Search" name="search" type="search" value={search} onInput={setSearch} placeholder="Code or note" />
        </div>
        <ErrorBanner error={list.error ?? action.error} />
        {/* A new filter or search starts again at the first page. */}
        <PagedTable
          key={`${filter} ${search}`}
          items={list.data && shown}
          empty="No licenses match."
          headers={['Code', 'Duration', 'Note', 'Status', 'Created', '']}
          row={(l) => (
            <tr key={l.id}>
              <td class="mono">{l.code}</td>
              <td>{formatMinutes(l.minutes)}</td>
              <td>{l.note}</td>
              <td>
                {!l.used_at && <Badge tone="green">unused</Badge>}
                {l.used_at && l.used_by_user_id && (
                  <Link href={userHref(app.id, l.used_by_user_id)} title="The user who redeemed it">
                    <Badge tone="blue">used {formatDateTime(l.used_at)}</Badge>
                  </Link>
                )}
                {l.used_at && !l.used_by_user_id && <Badge tone="blue">used {formatDateTime(l.used_at)}</Badge>} {l.banned && <Badge tone="red">banned</Badge>}
              </td>
              <td>{formatDateTime(l.created_at)}</td>
              <RowActions onDelete={l.used_at ? undefined : () => void remove(l)} />
            </tr>
          )}
        />
      </Card>
    </>
  );
}

function GenerateLicenses({ appId, onCreated }: { appId: string; onCreated: (l: License[]) => void }) {
  const [count, setCount] = useState('10');
  const [amount, setAmount] = useState('30');
  const [unit, setUnit] = useState<DurationUnit>('days');
  const [lifetime, setLifetime] = useState(false);
  const [note, setNote] = useState('');
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const minutes = lifetime ? null : Number(amount) * DURATION_UNITS[unit];
      const body = { count: Number(count), minutes, ...(note.trim() ? { note: note.trim() } : {}) };
      onCreated((await post<{ licenses: License[] }>(appPath(appId, '/licenses'), body)).licenses);
    });
  };
  return (
    <Card title="Generate licenses">
      <form onSubmit={submit}>
        <ErrorBanner error={action.error} />
        <div class="form-row">
          <TextField label="How many" name="count" type="number" min={1} max={10000} value={count} onInput={setCount} required />
          <TextField label="Duration" name="amount" type="number" min={1} value={amount} onInput={setAmount} required={!lifetime} />
          <SelectField<DurationUnit> label="Unit" name="unit" value={unit} onChange={setUnit} options={DURATION_UNIT_OPTIONS} />
          <TextField label="Note" name="note" value={note} onInput={setNote} placeholder="optional" />
        </div>
        <CheckField label="Lifetime" name="lifetime" checked={lifetime} onChange={setLifetime} hint="Never expires; the duration is ignored." />
        <FormActions label="Generate" busy={action.busy} />
      </form>
    </Card>
  );
}

function FreshLicenses({ licenses, onDone }: { licenses: License[]; onDone: () => void }) {
  const codes = licenses.map((l) => l.code).join('\n');
  return (
    <Card title={`${licenses.length} new license${licenses.length === 1 ? '' : 's'}`} actions={<CopyButton value={codes} label="Copy all codes" />}>
      <pre class="codes" data-testid="new-licenses">
        {codes}
      </pre>
      <button type="button" class="btn btn-small" onClick={onDone}>
        Dismiss
      </button>
    </Card>
  );
}
