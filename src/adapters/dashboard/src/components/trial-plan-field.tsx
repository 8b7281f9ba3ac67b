// The application's trial plan (docs/plans.md, "Trials"): one of its base plans with trial on, or
// none. Set on the settings page only: a new application has no plans yet.
import { appPath, get } from '../api.js';
import { trialPlanOptions } from '../trial-plans.js';
import type { Plan } from '../types.js';
import { SelectField } from './fields.js';
import { useLoad } from './use-load.js';

export function TrialPlanField({ appId, value, onChange }: { appId: string; value: string | null; onChange: (id: string | null) => void }) {
  const plans = useLoad(() => get<Plan[]>(appPath(appId, '/plans')), [appId]);
  return (
    <div class="form-grid">
      <SelectField label="Trial plan" name="trial_plan_id" value={value ?? ''} options={trialPlanOptions(plans.data ?? [], value)} onChange={(id) => onChange(id === '' ? null : id)} />
      <small>Users without a plan may start it once per user and per machine (POST /start_trial). Only base plans with “trial” on are listed.</small>
    </div>
  );
}
