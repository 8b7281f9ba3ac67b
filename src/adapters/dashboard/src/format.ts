// How times, sizes and durations read on screen.

export function formatDateTime(iso: string | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatBytes(bytes: number | null): string {
  if (bytes === null) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** A license's or an adjustment's minutes as days, hours and minutes; null is lifetime. */
export function formatMinutes(minutes: number | null): string {
  if (minutes === null) return 'Lifetime';
  const sign = minutes < 0 ? '−' : '';
  let rest = Math.abs(minutes);
  const days = Math.floor(rest / 1440);
  rest -= days * 1440;
  const hours = Math.floor(rest / 60);
  const mins = rest - hours * 60;
  const parts = [days && `${days} d`, hours && `${hours} h`, mins && `${mins} min`].filter(Boolean);
  return sign + (parts.length ? parts.join(' ') : '0 min');
}

export const DURATION_UNITS = { days: 1440, hours: 60, minutes: 1 } as const;
export type DurationUnit = keyof typeof DURATION_UNITS;

/** The units as a duration's unit select offers them. */
export const DURATION_UNIT_OPTIONS: Array<[DurationUnit, string]> = [
  ['days', 'days'],
  ['hours', 'hours'],
  ['minutes', 'minutes'],
];

/** A <input type="datetime-local"> value (local time) as an ISO instant. */
export function localInputToIso(value: string): string {
  return new Date(value).toISOString();
}

/** An ISO instant as a <input type="datetime-local"> value in local time. */
export function isoToLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
