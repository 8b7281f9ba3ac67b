import type { Actor } from '../events/actor.js';
import { acceptDeviceInfo, type DeviceInfoBody } from '../../domain/device-info.js';
import { DomainError } from '../../domain/errors.js';
import { heartbeatLease } from '../../domain/leases.js';
import type { Instant } from '../../domain/time.js';
import type { Caller } from '../deps.js';
import type { DeviceStore } from '../ports/device-store.js';
import type { ApplicationRecord } from '../records.js';
import { sessionFromToken, type AuthenticateUserDeps } from './authenticate-user.js';

export interface HeartbeatBody {
  hardware_id?: string;
  /** What the machine says about itself, kept as login keeps it (docs/machines.md, "Devices"). */
  device?: DeviceInfoBody;
}

/** POST /api/integration/heartbeat: the session and its user checked as any token request is,
 * then the lease moved in one statement (docs/machines.md, "Heartbeats and leases"). */
export async function heartbeat(
  deps: AuthenticateUserDeps & { store: Pick<DeviceStore, 'noteDeviceSeen'> },
  app: ApplicationRecord,
  token: string,
  body: HeartbeatBody,
  caller: Caller,
  actor: Actor,
): Promise<{ leaseExpiresAt: Instant; serverTime: Instant }> {
  const info = acceptDeviceInfo(body.device);
  const { session } = await sessionFromToken(deps, app, token, caller, actor);
  if (body.hardware_id !== undefined && session.hardwareId !== null && body.hardware_id !== session.hardwareId) {
    throw new DomainError('INVALID_CREDENTIALS', 'this session was opened on another machine');
  }
  const now = deps.clock.now();
  const lease = heartbeatLease(session, app.settings.heartbeatSeconds, now);
  if (lease.renew && !(await deps.store.renewLease(session.id, lease.leaseExpiresAt, now))) {
    // Revoked or lapsed between the read and the write.
    throw new DomainError('SESSION_EXPIRED', 'the session has expired or was revoked; log in again');
  }
  // A sighting of the machine: written at most once a minute, or when what it says changed.
  if (session.hardwareId !== null) await deps.store.noteDeviceSeen({ applicationId: app.id, userId: session.userId, hardwareId: session.hardwareId, info, ip: caller.ip, now });
  return { leaseExpiresAt: lease.leaseExpiresAt, serverTime: now };
}
