// What a change records about itself (docs/events.md): the event delivered to webhooks and the
// audit entry are one row, written in the change's own transaction. A draft is what the code
// making the change knows; the store adds the id, the instant and the acting actor.
export interface EventTarget {
  type: string;
  id: string;
  /** What a person reads for the target (a username, a file name, a masked license code). */
  label: string | null;
}

export interface EventDraft {
  applicationId: string;
  /** An event name of WEBHOOK_EVENTS, or an audit-only action such as `owner.signed_in`. */
  action: string;
  target: EventTarget;
  // The event's secret-free facts (records minus secrets, instants in epoch ms), rendered into the
  // `data` webhooks deliver by the events adapter (docs/choices.md, "Events are data").
  data: Record<string, unknown>;
  /** `{field: [before, after]}`; secrets never appear (their field may, with null values). */
  changes?: Record<string, [unknown, unknown]>;
  /** `success`, or what refused the action (`refused`, an error code). */
  outcome?: string;
}

/** An event's facts of a declared shape, as a draft's `data`. */
export const facts = <T extends object>(f: T): Record<string, unknown> => ({ ...f }) as Record<string, unknown>;

/** The events webhooks can subscribe to (docs/events.md, Events); other actions are audit-only. */
export const WEBHOOK_EVENTS = [
  'user.created',
  'user.deleted',
  'session.created',
  'session.revoked',
  'refresh.reused',
  'license.created',
  'license.activated',
  'license.deleted',
  'membership.adjusted',
  'membership.plan_changed',
  'membership.expiring',
  'membership.expired',
  'trial.started',
  'seat.exhausted',
  'seat.borrowed',
  'seat.returned',
  'ban.created',
  'ban.removed',
  'user.timed_out',
  'user.timeout_lifted',
  'device.registered',
  'device.removed',
  'device.limit_reached',
  'auth.locked',
  'sign_up.limited',
  'file.completed',
  'file.failed',
  'file.deleted',
  'variable.changed',
  'announcement.changed',
  'application.settings_changed',
  'application.credentials_rotated',
  'webhook.test',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const isWebhookEvent = (action: string): action is WebhookEvent => (WEBHOOK_EVENTS as readonly string[]).includes(action);

/** A license code as events may show it: its first and last 4 characters (docs/events.md). */
export function maskCode(code: string): string {
  return code.length <= 8 ? '*'.repeat(code.length) : `${code.slice(0, 4)}${'*'.repeat(code.length - 8)}${code.slice(-4)}`;
}
