import type { ComponentChildren } from 'preact';

export type Tone = 'green' | 'red' | 'amber' | 'blue' | 'grey';

export function Badge({ tone = 'grey', children }: { tone?: Tone; children: ComponentChildren }) {
  return <span class={`badge badge-${tone}`}>{children}</span>;
}

const STATUS_TONES: Record<string, Tone> = {
  COMPLETED: 'green',
  STORED: 'green',
  PUBLISHED: 'green',
  PENDING: 'amber',
  DRAFT: 'amber',
  FAILED: 'red',
  NOT_STORED: 'grey',
  ARCHIVED: 'grey',
  DASHBOARD: 'blue',
  ADMIN_API: 'grey',
};

export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={STATUS_TONES[status] ?? 'grey'}>{status.replace(/_/g, ' ')}</Badge>;
}
