// Refresh tokens: the lookup by digest and the one atomic refresh (docs/machines.md, "Refresh tokens").
import type { Actor } from '../events/actor.js';
import type { Instant } from '../../domain/time.js';
import type { RefreshTokenRecord, SessionRecord, UserRecord } from '../records.js';

/** What a granted refresh writes: the new session (of the token's family) and the next token. */
export interface Rotation {
  session: SessionRecord;
  next: RefreshTokenRecord;
  /** allowed_number_of_simultaneous_sessions, as at login. */
  cap: number;
  /** With device auth the machine must still be one of the user's devices. */
  deviceAuth: boolean;
  /** The lease the session gets if it takes a floating seat, as at login. */
  floatingLease: number;
}

export interface RefreshInput {
  applicationId: string;
  tokenDigest: string;
  hardwareId: string;
  /** Null when the caller already knows it will not rotate (a spent token): then only a reuse is handled. */
  rotation: Rotation | null;
  now: Instant;
  ip?: string;
}

/** rotated: the session and next token are written; reused: the family was revoked (committed);
 * invalid: nothing was written. */
export type RefreshOutcome = { kind: 'rotated'; user: UserRecord } | { kind: 'reused' } | { kind: 'invalid' };

export interface RefreshTokenStore {
  findRefreshToken(tokenDigest: string): Promise<RefreshTokenRecord | null>;
  /** ATOMIC, under the user's row lock, by decideRefresh: a reuse revokes the family (`reused`); a rotation
   * refuses as openSession does, ends the family's session, spends the token, opens the next session and
   * stores the next token; a dropped device is `invalid` (docs/machines.md, "Refresh tokens"). */
  refreshSession(input: RefreshInput, actor: Actor): Promise<RefreshOutcome>;
}
