// Password hashing, in bounded lanes so that one flood of sign-ins cannot starve the others.

export interface PasswordHasher {
  /** A place in `lane`'s bounded queue of password work (a lane per application, and one for the
   * console), held by one request for all of its hashing; null when that queue is full. Lanes
   * take turns, so one application's flood does not starve another's checks. */
  admit(lane: string): PasswordWork | null;
  /** True when the hash was made with weaker parameters than the current ones. */
  needsRehash(hash: string): boolean;
  /** The password work running and waiting now, over all lanes. */
  load(): PasswordWorkLoad;
}

export interface PasswordWorkLoad {
  running: number;
  waiting: number;
}

/** The hashing of one request, each call waiting for its lane's turn. */
export interface PasswordWork {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
  /** Spends the same work as a verify, for unknown accounts (no timing oracle). */
  verifyDummy(password: string): Promise<void>;
  /** Gives the place back; a second call does nothing. */
  done(): void;
}
