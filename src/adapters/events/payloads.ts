// The events a change records (docs/events.md, Events): each builder takes the records the change
// made and returns the event's draft, its `data` built by the views the API answers with, so an
// event shows a user, a license or a ban exactly as the API does, minus its secrets.
import type { EventDraft } from '../../application/events/event-draft.js';
import type { UserRecord } from '../../application/records.js';
import { userSummaryJson } from '../http/views.js';

const userTarget = (u: UserRecord) => ({ type: 'user', id: u.id, label: u.username });

/** `user.created`: by a sign-up (`sign_up`) or a sign-up with a license code. */
export const userCreated = (u: UserRecord, source: 'sign_up' | 'sign_up_with_license_code', now: number): EventDraft => ({
  applicationId: u.applicationId,
  action: 'user.created',
  target: userTarget(u),
  data: { user: userSummaryJson(u, now), source },
});
