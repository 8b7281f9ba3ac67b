// Adjustments over the selected users, or over one from their page (the body and its rules:
// adjustments.ts).
import { useState } from 'preact/hooks';
import { adjustmentBody, type AdjustMode } from '../adjustments.js';
import { appPath, post } from '../api.js';
import { DURATION_UNIT_OPTIONS, DURATION_UNITS, type DurationUnit } from '../format.js';
import { ErrorBanner } from './error-banner.js';
import { Card, CheckField, FormActions, SelectField, TextField } from './fields.js';
import { runConfirmed, useAction } from './use-load.js';

const MODES: Array<[AdjustMode, string]> = [
  ['extend', 'Extend membership'],
  ['reduce', 'Reduce membership'],
  ['grant', 'Grant lifetime access'],
  ['revoke', 'Revoke lifetime access'],
];

interface BulkAdjustProps {
  appId: string;
  userIds: string[];
  onDone: (adjusted: number) => void;
  /** For one user's page: the card's title and who the change is for, instead of "N selected users". */
  single?: { title: string; name: string };
}

export function BulkAdjust({ appId, userIds, onDone, single }: BulkAdjustProps) {
  const [mode, setMode] = useState<AdjustMode>('extend');
  const [amount, setAmount] = useState('30');
  const [unit, setUnit] = useState<DurationUnit>('days');
  const [alsoRevoke, setAlsoRevoke] = useState(false);
  const [reason, setReason] = useState('');
  const action = useAction();
  const timed = mode === 'extend' || mode === 'reduce';
  const n = userIds.length;
  const whom = single?.name ?? `${n} user${n === 1 ? '' : 's'}`;
  const submit = (e: Event) => {
    e.preventDefault();
    const label = MODES.find(([m]) => m === mode)?.[1] ?? mode;
    void runConfirmed(
      action,
      { title: `${label} for ${whom}?`, message: single ? 'It is recorded in their membership history.' : 'Each user gets an adjustment in their history.', label: 'Apply' },
      async () => {
        const body = { user_ids: userIds, ...adjustmentBody(mode, Number(amount) * DURATION_UNITS[unit], alsoRevoke, reason) };
        onDone((await post<{ adjusted: number }>(appPath(appId, '/adjustments'), body)).adjusted);
      },
    );
  };
  return (
    <Card title={single?.title ?? `Adjust ${n} selected user${n === 1 ? '' : 's'}`}>
      <form onSubmit={submit}>
        <ErrorBanner error={action.error} />
        <div class="form-row">
          <SelectField<AdjustMode> label="Action" name="mode" value={mode} onChange={setMode} options={MODES} />
          {timed && (
            <>
              <TextField label="By" name="amount" type="number" min={1} value={amount} onInput={setAmount} required />
              <SelectField<DurationUnit> label="Unit" name="unit" value={unit} onChange={setUnit} options={DURATION_UNIT_OPTIONS} />
            </>
          )}
          <TextField label="Reason" name="reason" value={reason} onInput={setReason} placeholder="optional, shown in the history" />
        </div>
        {timed && <CheckField label="Also revoke lifetime access" checked={alsoRevoke} onChange={setAlsoRevoke} />}
        <FormActions label={single ? 'Apply' : `Apply to ${whom}`} busy={action.busy} disabled={n === 0} />
      </form>
    </Card>
  );
}
