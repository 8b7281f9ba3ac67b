// Trials (docs/plans.md, "Trials"): starting the application's trial, once per user and once per
// machine. Methods marked ATOMIC are one transaction (see store.ts).
import type { Actor } from '../events/actor.js';
import type { DeviceToAdmit } from '../../domain/devices.js';
import type { Instant } from '../../domain/time.js';
import type { AdjustmentRecord, UserRecord } from '../records.js';

export interface StartTrialInput {
  applicationId: string;
  userId: string;
  /** The keyed digest of the hardware id: what the trial ledger keeps, for ever. */
  hardwareDigest: string;
  adjustmentId: string;
  /** With device auth: admitted (DEVICE_LIMIT_REACHED) in the same transaction as the grant. */
  device: DeviceToAdmit | null;
  now: Instant;
}

export interface TrialStore {
  /** ATOMIC: grants the trial plan as the domain's startTrial decides (docs/plans.md, "Trials"); throws
   * TRIAL_NOT_OFFERED, TRIAL_USED, TRIAL_NOT_ELIGIBLE, INVALID_CREDENTIALS (the user is gone), BANNED,
   * TIMED_OUT or DEVICE_LIMIT_REACHED, and then writes nothing. */
  startTrial(input: StartTrialInput, actor: Actor): Promise<{ user: UserRecord; adjustment: AdjustmentRecord }>;
}
