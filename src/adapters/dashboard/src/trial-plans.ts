// The plans the settings page offers as the trial plan (docs/plans.md, "Trials").
import type { Plan } from './types.js';

const offers = (p: Plan) => p.kind === 'base' && p.trial && !p.archived;

/** The plans that may be named, and the one named now even if it no longer offers a trial. */
export function trialPlanOptions(plans: Plan[], current: string | null): Array<[string, string]> {
  const listed = plans.filter((p) => offers(p) || p.id === current);
  return [['', 'No trial'], ...listed.map((p): [string, string] => [p.id, offers(p) ? p.name : `${p.name} (archived or not a trial: none offered)`])];
}
