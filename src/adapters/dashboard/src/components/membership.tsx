import type { User } from '../types.js';
import { formatDateTime } from '../format.js';
import { Badge } from './badge.js';

export function MembershipBadge({ user }: { user: User }) {
  const m = user.membership;
  if (m.is_lifetime) return <Badge tone="green">lifetime</Badge>;
  if (m.in_grace) return <Badge tone="amber">in grace until {formatDateTime(m.grace_ends_at)}</Badge>;
  if (m.is_active) return <Badge tone="green">active until {formatDateTime(m.active_until)}</Badge>;
  return <Badge tone="grey">{m.active_until ? `expired ${formatDateTime(m.active_until)}` : 'no membership'}</Badge>;
}

export function TimeoutBadge({ user }: { user: User }) {
  if (!user.timed_out_until || Date.parse(user.timed_out_until) <= Date.now()) return null;
  return <Badge tone="red">timed out until {formatDateTime(user.timed_out_until)}</Badge>;
}
