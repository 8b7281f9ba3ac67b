// The signed head an owner exports to keep outside the database (docs/events.md, Anchoring the
// chain): whoever can write the database can cut a chain's newest entries and re-point its head,
// but cannot sign a head with the application's key (sealed under the master key).
import { DomainError } from '../../domain/errors.js';
import { toIso } from '../../domain/time.js';
import { AUDIT_HEAD_FORMAT, auditHeadSigningText, type SignedAuditHead } from '../../signing/audit-head.js';
import { responseKeyId } from '../../signing/response-signature.js';
import type { Deps } from '../deps.js';
import type { ApplicationStore } from '../ports/application-store.js';
import type { EventStore } from '../ports/event-store.js';

export type AuditHeadDeps = Pick<Deps, 'clock' | 'responseKeys'> & { store: Pick<ApplicationStore, 'findApplication'> & Pick<EventStore, 'chainHead'> };

/** The application's chain head signed now; null while its chain is empty. */
export async function signAuditHead(deps: AuditHeadDeps, applicationId: string): Promise<SignedAuditHead | null> {
  const app = await deps.store.findApplication(applicationId);
  if (app === null) throw new DomainError('APPLICATION_NOT_FOUND', 'no such application');
  const key = app.signing.response;
  if (key === null) throw new Error(`application ${applicationId} has no response signing key`);
  const head = await deps.store.chainHead(applicationId);
  if (head === null) return null;
  const unsigned = { application_id: applicationId, seq: head.seq, hash: head.hash, signed_at: toIso(deps.clock.now()) };
  const signature = await deps.responseKeys.sign(key, auditHeadSigningText(unsigned));
  return { format: AUDIT_HEAD_FORMAT, ...unsigned, key_id: responseKeyId(key.publicKey), signature };
}
