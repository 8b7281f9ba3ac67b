// Floating seats: the borrow, its return and the exhaustion notice (docs/machines.md, "Floating
// seats"). Methods marked ATOMIC are one transaction (see store.ts). Instants are epoch milliseconds.
import type { Actor } from '../events/actor.js';
import type { ApplicationSettings } from '../../domain/application-settings.js';
import type { UserPlans } from '../../domain/membership-state.js';
import type { Instant } from '../../domain/time.js';
import type { UserRecord } from '../records.js';

export interface BorrowSeatInput {
  applicationId: string;
  userId: string;
  /** The machine that holds the seat offline. */
  hardwareId: string;
  /** With device auth: the id a newly registered device gets; null admits no device. */
  newDeviceId: string | null;
  capDefaults: Pick<ApplicationSettings, 'defaultAllowedDevices' | 'defaultAllowedSessions'>;
  minutes: number;
  /** The borrow's session row, which no token names. */
  borrowId: string;
  /** The offline license file's id (`jti`). */
  fileId: string;
  now: Instant;
}

export interface FloatingSeatStore {
  /** ATOMIC: under the user's and the license's locks, checks the plan (BORROWING_NOT_ALLOWED, minutes), admits the
   * machine, replaces its earlier borrow, refuses past the seats (SEATS_EXHAUSTED), holds the seat until the end and
   * records the file, license_file.issued and seat.borrowed (docs/machines.md, "Floating seats"). */
  borrowSeat(input: BorrowSeatInput, actor: Actor): Promise<{ user: UserRecord; plans: UserPlans; expiresAt: Instant }>;
  /** ATOMIC: ends the user's live borrow of the machine and records `seat.returned`; false when none. */
  returnSeat(input: { applicationId: string; userId: string; hardwareId: string; now: Instant }, actor: Actor): Promise<boolean>;
  /** ATOMIC: records `seat.exhausted` for the user's floating license, at most once a minute per license. */
  recordSeatsExhausted(input: { applicationId: string; userId: string; hardwareId: string | null; now: Instant }, actor: Actor): Promise<void>;
}
