// Sign-ups and logins per day as a small SVG line chart, drawn here: no chart library for two
// lines. Colours come from CSS classes (the CSP allows no inline style attributes).
import type { Overview } from '../types.js';

const W = 600;
const H = 180;
const PAD = { left: 36, right: 12, top: 12, bottom: 28 };

function points(values: number[], max: number): string {
  const step = (W - PAD.left - PAD.right) / Math.max(1, values.length - 1);
  const height = H - PAD.top - PAD.bottom;
  return values.map((v, i) => `${(PAD.left + i * step).toFixed(1)},${(PAD.top + height - (v / max) * height).toFixed(1)}`).join(' ');
}

function niceMax(n: number): number {
  if (n <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(n));
  return Math.ceil(n / magnitude) * magnitude;
}

export function DailyChart({ daily }: { daily: Overview['daily'] }) {
  const max = niceMax(Math.max(0, ...daily.map((d) => Math.max(d.sign_ups, d.logins))));
  const height = H - PAD.top - PAD.bottom;
  const ticks = [0, max / 2, max];
  const first = daily[0]?.date ?? '';
  const last = daily[daily.length - 1]?.date ?? '';
  const total = (k: 'sign_ups' | 'logins') => daily.reduce((s, d) => s + d[k], 0);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`Sign-ups and logins per day, ${first} to ${last}`}>
        {ticks.map((t) => {
          const y = PAD.top + height - (t / max) * height;
          return (
            <g key={t}>
              <line class="chart-grid" x1={PAD.left} x2={W - PAD.right} y1={y} y2={y} />
              <text class="chart-label" x={PAD.left - 6} y={y + 4} text-anchor="end">
                {Number.isInteger(t) ? t : t.toFixed(1)}
              </text>
            </g>
          );
        })}
        <polyline class="chart-line chart-logins" points={points(daily.map((d) => d.logins), max)} />
        <polyline class="chart-line chart-signups" points={points(daily.map((d) => d.sign_ups), max)} />
        <text class="chart-label" x={PAD.left} y={H - 8}>
          {first}
        </text>
        <text class="chart-label" x={W - PAD.right} y={H - 8} text-anchor="end">
          {last}
        </text>
      </svg>
      <figcaption class="chart-legend">
        <span class="legend-signups">Sign-ups ({total('sign_ups')})</span>
        <span class="legend-logins">Logins ({total('logins')})</span>
        <span class="muted">last 30 days, UTC</span>
      </figcaption>
    </figure>
  );
}
