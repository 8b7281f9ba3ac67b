// What the application sells (docs/plans.md, docs/api.md "Plans"): base plans and add-ons,
// their entitlements and caps. Plans are archived, not deleted, once anything refers to them.
import { useState } from 'preact/hooks';
import { appPath, del, get, patch, post, seg } from '../api.js';
import type { AppPageProps } from '../components/app-shell.js';
import { Badge } from '../components/badge.js';
import { PagedTable, RowActions, RowButton } from '../components/data-table.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Card, CheckField, FormActions, SelectField, TextField } from '../components/fields.js';
import { runConfirmed, useAction, useLoad } from '../components/use-load.js';
import { DURATION_UNIT_OPTIONS, DURATION_UNITS, formatMinutes, type DurationUnit } from '../format.js';
import type { Plan, PlanKind } from '../types.js';

/** Minutes in the largest unit that holds them whole, for the form. */
function inUnits(minutes: number): { amount: string; unit: DurationUnit } {
  const unit = minutes % DURATION_UNITS.days === 0 ? 'days' : minutes % DURATION_UNITS.hours === 0 ? 'hours' : 'minutes';
  return { amount: String(minutes / DURATION_UNITS[unit]), unit };
}

/** An optional whole number from a field: blank is null (the application's default). */
const optionalNumber = (text: string): number | null => (text.trim() === '' ? null : Number(text));

export function PlansPage({ app }: AppPageProps) {
  const plans = useLoad(() => get<Plan[]>(appPath(app.id, '/plans')), [app.id]);
  const [editing, setEditing] = useState<Plan | null>(null);
  // A new form after each save: the next plan starts from the defaults, not the last one's terms.
  const [saved, setSaved] = useState(0);
  const change = useAction();

  const setArchived = (p: Plan, archived: boolean) =>
    void change.run(async () => {
      await patch(appPath(app.id, `/plans/${seg(p.id)}`), { archived });
      await plans.reload();
    });
  const drop = (p: Plan) =>
    runConfirmed(change, { title: `Delete ${p.name}?`, message: 'Only a plan no license or membership refers to can be deleted; archive it otherwise.' }, async () => {
      await del(appPath(app.id, `/plans/${seg(p.id)}`));
      if (editing?.id === p.id) setEditing(null);
      await plans.reload();
    });

  return (
    <>
      <h1>Plans</h1>
      <PlanForm
        key={editing?.id ?? `new-${saved}`}
        appId={app.id}
        editing={editing}
        onSaved={() => (setEditing(null), setSaved((n) => n + 1), void plans.reload())}
        onCancel={() => setEditing(null)}
      />
      <Card title="Plans">
        <ErrorBanner error={plans.error ?? change.error} />
        <PagedTable
          items={plans.data}
          empty="No plans yet."
          headers={['Name', 'Kind', 'Duration', 'Entitlements', 'Seats', '']}
          row={(p) => (
            <tr key={p.id}>
              <td>
                {p.name} {p.archived && <Badge>archived</Badge>} {p.trial && <Badge tone="blue">trial</Badge>}
              </td>
              <td>{p.kind === 'base' ? 'Base' : 'Add-on'}</td>
              <td>{formatMinutes(p.duration_minutes)}</td>
              <td class="mono cell-value">{p.entitlements.join(', ') || '—'}</td>
              <td>{p.seats}</td>
              <RowActions onDelete={() => void drop(p)}>
                <RowButton label="Edit" onClick={() => setEditing(p)} />
                <RowButton label={p.archived ? 'Restore' : 'Archive'} onClick={() => setArchived(p, !p.archived)} />
              </RowActions>
            </tr>
          )}
        />
      </Card>
    </>
  );
}

function PlanForm({ appId, editing, onSaved, onCancel }: { appId: string; editing: Plan | null; onSaved: () => void; onCancel: () => void }) {
  const duration = editing?.duration_minutes == null ? { amount: '30', unit: 'days' as DurationUnit } : inUnits(editing.duration_minutes);
  const grace = inUnits(editing?.grace_minutes ?? 0);
  const [name, setName] = useState(editing?.name ?? '');
  const [kind, setKind] = useState<PlanKind>(editing?.kind ?? 'base');
  const [amount, setAmount] = useState(duration.amount);
  const [unit, setUnit] = useState<DurationUnit>(duration.unit);
  const [lifetime, setLifetime] = useState(editing !== null && editing.duration_minutes === null);
  const [entitlements, setEntitlements] = useState(editing?.entitlements.join(', ') ?? '');
  const [seats, setSeats] = useState(String(editing?.seats ?? 1));
  const [maxDevices, setMaxDevices] = useState(editing?.max_devices == null ? '' : String(editing.max_devices));
  const [maxSessions, setMaxSessions] = useState(editing?.max_sessions == null ? '' : String(editing.max_sessions));
  const [graceAmount, setGraceAmount] = useState(grace.amount);
  const [graceUnit, setGraceUnit] = useState<DurationUnit>(grace.unit);
  const [trial, setTrial] = useState(editing?.trial ?? false);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const body = {
        name: name.trim(),
        kind,
        duration_minutes: lifetime ? null : Number(amount) * DURATION_UNITS[unit],
        entitlements: entitlements.split(/[\s,]+/).filter(Boolean),
        seats: Number(seats),
        max_devices: optionalNumber(maxDevices),
        max_sessions: optionalNumber(maxSessions),
        grace_minutes: Number(graceAmount) * DURATION_UNITS[graceUnit],
        trial: kind === 'base' && trial,
      };
      if (editing) await patch(appPath(appId, `/plans/${seg(editing.id)}`), body);
      else await post(appPath(appId, '/plans'), body);
      onSaved();
    });
  };
  return (
    <Card title={editing ? `Edit ${editing.name}` : 'New plan'}>
      <form onSubmit={submit}>
        <ErrorBanner error={action.error} />
        <div class="form-row">
          <TextField label="Name" name="name" value={name} onInput={setName} required />
          {!editing && (
            <SelectField<PlanKind>
              label="Kind"
              name="kind"
              value={kind}
              onChange={setKind}
              options={[
                ['base', 'Base plan'],
                ['add_on', 'Add-on'],
              ]}
            />
          )}
          <TextField label="Duration" name="duration" type="number" min={1} value={amount} onInput={setAmount} required={!lifetime} />
          <SelectField<DurationUnit> label="Unit" name="duration_unit" value={unit} onChange={setUnit} options={DURATION_UNIT_OPTIONS} />
        </div>
        <CheckField label="Lifetime" name="lifetime" checked={lifetime} onChange={setLifetime} hint="Never expires; the duration is ignored." />
        <div class="form-row">
          <TextField label="Entitlements" name="entitlements" value={entitlements} onInput={setEntitlements} hint="Codes separated by commas: a-z 0-9 _ . : -" />
          <TextField label="Seats" name="seats" type="number" min={1} max={10000} value={seats} onInput={setSeats} required hint="Users one code serves" />
        </div>
        <div class="form-row">
          <TextField label="Devices" name="max_devices" type="number" min={0} max={1000} value={maxDevices} onInput={setMaxDevices} hint="Blank: the application's default" />
          <TextField label="Sessions" name="max_sessions" type="number" min={1} max={1000} value={maxSessions} onInput={setMaxSessions} hint="Blank: the application's default" />
          <TextField label="Grace" name="grace" type="number" min={0} value={graceAmount} onInput={setGraceAmount} required hint="Access kept after the end" />
          <SelectField<DurationUnit> label="Grace unit" name="grace_unit" value={graceUnit} onChange={setGraceUnit} options={DURATION_UNIT_OPTIONS} />
        </div>
        {kind === 'base' && <CheckField label="Trial plan" name="trial" checked={trial} onChange={setTrial} hint="May be named the application's trial plan." />}
        <FormActions label={editing ? 'Save' : 'Create plan'} busy={action.busy} onCancel={editing ? onCancel : undefined} />
      </form>
    </Card>
  );
}
