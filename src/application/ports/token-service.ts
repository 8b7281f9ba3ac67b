// The signed tokens of integration sessions. Instants are epoch milliseconds.
import type { Instant } from '../../domain/time.js';

export interface SessionClaims {
  sessionId: string;
  applicationId: string;
  userId: string;
  hardwareId: string | null;
  expiresAt: Instant;
}

export interface TokenService {
  issue(claims: SessionClaims): Promise<string>;
  /** The claims of a well-formed, correctly signed token (expired or not); null otherwise. A MAC
   * check in process, asked on every authenticated request: no promise. */
  read(token: string): SessionClaims | null;
}
