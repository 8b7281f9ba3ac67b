import { useMemo, useState } from 'preact/hooks';
import { appPath, del, get, post, seg } from '../api.js';
import type { AppPageProps } from '../components/app-shell.js';
import { Badge } from '../components/badge.js';
import { CopyButton } from '../components/copy-button.js';
import { DataTable, PagedTable, RowActions, RowButton } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Card, CheckField, Empty, FormActions, SelectField, TextField } from '../components/fields.js';
import { Link } from '../components/link.js';
import { runConfirmed, useAction, useLoad } from '../components/use-load.js';
import { toCsv } from '../csv.js';
import { downloadText } from '../download.js';
import { DURATION_UNIT_OPTIONS, DURATION_UNITS, formatDateTime, formatMinutes, type DurationUnit } from '../format.js';
import { userHref } from '../router.js';
import type { License, LicenseRedemption, Plan } from '../types.js';

type Filter = 'all' | 'unused' | 'used';

export function LicensesPage({ app }: AppPageProps) {
  const [filter, setFilter] = useState<Filter>('all');
  const [search, setSearch] = useState('');
  const list = useLoad(() => get<License[]>(appPath(app.id, `/licenses${filter === 'all' ? '' : `?status=${filter}`}`)), [app.id, filter]);
  const plans = useLoad(() => get<Plan[]>(appPath(app.id, '/plans')), [app.id]);
  const planNames = useMemo(() => new Map((plans.data ?? []).map((p) => [p.id, p.name])), [plans.data]);
  const [fresh, setFresh] = useState<License[]>([]);
  const [seatsOf, setSeatsOf] = useState<License | null>(null);
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
        ['code', 'grants', 'minutes', 'plan_id', 'seats', 'redemptions', 'note', 'created_at', 'used_at', 'used_by_user_id', 'banned'],
        shown.map((l) => [
          l.code,
          grants(l),
          l.plan_id === null ? (l.minutes ?? 'lifetime') : '',
          l.plan_id ?? '',
          l.seats,
          l.redemptions,
          l.note ?? '',
          l.created_at,
          l.used_at ?? '',
          l.used_by_user_id ?? '',
          l.banned,
        ]),
      ),
    );

  // A plan's license names its plan; a deleted plan cannot be (a plan in use is never deleted).
  const grants = (l: License) => (l.plan_id === null ? formatMinutes(l.minutes) : (planNames.get(l.plan_id) ?? 'a plan'));

  return (
    <>
      <h1>Licenses</h1>
      <GenerateLicenses appId={app.id} plans={(plans.data ?? []).filter((p) => !p.archived)} onCreated={(created) => (setFresh(created), void list.reload())} />
      {fresh.length > 0 && <FreshLicenses licenses={fresh} onDone={() => setFresh([])} />}
      {seatsOf && <Seats appId={app.id} license={seatsOf} onChange={() => void list.reload()} onClose={() => setSeatsOf(null)} />}
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
          headers={['Code', 'Grants', 'Note', 'Status', 'Created', '']}
          row={(l) => (
            <tr key={l.id}>
              <td class="mono">{l.code}</td>
              <td>{grants(l)}</td>
              <td>{l.note}</td>
              <td>
                {l.seats > 1 && (
                  <Badge tone={l.redemptions < l.seats ? 'green' : 'blue'}>
                    {l.redemptions} of {l.seats} seats
                  </Badge>
                )}{' '}
                {!l.used_at && <Badge tone="green">unused</Badge>}
                {l.used_at && l.used_by_user_id && (
                  <Link href={userHref(app.id, l.used_by_user_id)} title="The user who redeemed it">
                    <Badge tone="blue">used {formatDateTime(l.used_at)}</Badge>
                  </Link>
                )}
                {l.used_at && !l.used_by_user_id && <Badge tone="blue">used {formatDateTime(l.used_at)}</Badge>} {l.banned && <Badge tone="red">banned</Badge>}
              </td>
              <td>{formatDateTime(l.created_at)}</td>
              <RowActions onDelete={l.used_at ? undefined : () => void remove(l)}>{l.plan_id !== null && l.redemptions > 0 && <RowButton label="Seats" onClick={() => setSeatsOf(l)} />}</RowActions>
            </tr>
          )}
        />
      </Card>
    </>
  );
}

/** Who redeemed a plan's code, and releasing a seat: the user loses what it granted (docs/plans.md, "Seats"). */
function Seats({ appId, license, onChange, onClose }: { appId: string; license: License; onChange: () => void; onClose: () => void }) {
  const path = appPath(appId, `/licenses/${seg(license.id)}/redemptions`);
  const held = useLoad(() => get<LicenseRedemption[]>(path), [path]);
  const action = useAction();
  const release = (r: LicenseRedemption) =>
    runConfirmed(
      action,
      { title: 'Release this seat?', message: `${r.username ?? 'The deleted user'} loses what ${license.code} granted, and the seat is free again.`, label: 'Release' },
      async () => {
        await del(`${path}/${seg(r.user_id)}`);
        await held.reload();
        onChange();
      },
    );
  return (
    <Card
      title={`Seats of ${license.code}`}
      actions={
        <button type="button" class="btn btn-small" onClick={onClose}>
          Close
        </button>
      }
    >
      <ErrorBanner error={held.error ?? action.error} />
      {held.data && held.data.length === 0 ? (
        <Empty>No seat is taken.</Empty>
      ) : (
        <DataTable headers={['User', 'Redeemed', '']}>
          {(held.data ?? []).map((r) => (
            <tr key={r.user_id}>
              <td>{r.username === null ? <span class="muted">deleted user</span> : <Link href={userHref(appId, r.user_id)}>{r.username}</Link>}</td>
              <td>{formatDateTime(r.redeemed_at)}</td>
              <RowActions onDelete={() => void release(r)} deleteLabel="Release" />
            </tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}

const MINUTES = '';

function GenerateLicenses({ appId, plans, onCreated }: { appId: string; plans: Plan[]; onCreated: (l: License[]) => void }) {
  const [count, setCount] = useState('10');
  // A plan's id, or MINUTES for a license of time alone.
  const [grant, setGrant] = useState(MINUTES);
  const [amount, setAmount] = useState('30');
  const [unit, setUnit] = useState<DurationUnit>('days');
  const [lifetime, setLifetime] = useState(false);
  const [note, setNote] = useState('');
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const minutes = lifetime ? null : Number(amount) * DURATION_UNITS[unit];
      const terms = grant === MINUTES ? { minutes } : { plan_id: grant };
      const body = { count: Number(count), ...terms, ...(note.trim() ? { note: note.trim() } : {}) };
      onCreated((await post<{ licenses: License[] }>(appPath(appId, '/licenses'), body)).licenses);
    });
  };
  return (
    <Card title="Generate licenses">
      <form onSubmit={submit}>
        <ErrorBanner error={action.error} />
        <div class="form-row">
          <TextField label="How many" name="count" type="number" min={1} max={10000} value={count} onInput={setCount} required />
          <SelectField<string> label="Grants" name="plan" value={grant} onChange={setGrant} options={[[MINUTES, 'Time only'], ...plans.map((p): [string, string] => [p.id, planLabel(p)])]} />
          {grant === MINUTES && (
            <>
              <TextField label="Duration" name="amount" type="number" min={1} value={amount} onInput={setAmount} required={!lifetime} />
              <SelectField<DurationUnit> label="Unit" name="unit" value={unit} onChange={setUnit} options={DURATION_UNIT_OPTIONS} />
            </>
          )}
          <TextField label="Note" name="note" value={note} onInput={setNote} placeholder="optional" />
        </div>
        {grant === MINUTES && <CheckField label="Lifetime" name="lifetime" checked={lifetime} onChange={setLifetime} hint="Never expires; the duration is ignored." />}
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

/** A plan as the license form offers it: its name, kind, duration and seats. */
function planLabel(p: Plan): string {
  const seats = p.seats > 1 ? `, ${p.seats} seats` : '';
  return `${p.name} (${p.kind === 'add_on' ? 'add-on, ' : ''}${formatMinutes(p.duration_minutes)}${seats})`;
}
