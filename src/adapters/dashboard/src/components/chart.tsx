// Sign-ups and logins per day as a small SVG bar chart drawn here, with no chart library. The SVG
// stretches to the card's width (bars only, nothing that distorts); scale and dates are HTML text.
// Colours come from CSS classes: the CSP allows no inline style attributes.
import type { Overview } from '../types.js';

const W = 600;
/** The same as the CSS height of .chart-plot, so one unit is one pixel vertically. */
const H = 180;
/** Half a label's line height: the grid lines sit at the labels' middles. */
const PAD = 6;

function niceMax(n: number): number {
  if (n <= 4) return 4;
  const magnitude = 10 ** Math.floor(Math.log10(n));
  return Math.ceil(n / magnitude) * magnitude;
}

export function DailyChart({ daily }: { daily: Overview['daily'] }) {
  const max = niceMax(Math.max(0, ...daily.map((d) => Math.max(d.sign_ups, d.logins))));
  const plotH = H - 2 * PAD;
  const slot = W / Math.max(1, daily.length);
  const bar = slot * 0.36;
  const y = (v: number) => PAD + plotH - (v / max) * plotH;
  const ticks = [max, max / 2, 0];
  const first = daily[0]?.date ?? '';
  const last = daily[daily.length - 1]?.date ?? '';
  const total = (k: 'sign_ups' | 'logins') => daily.reduce((s, d) => s + d[k], 0);
  return (
    <figure class="chart">
      <div class="chart-body">
        <div class="chart-axis" aria-hidden="true">
          {ticks.map((t) => (
            <span key={t}>{Number.isInteger(t) ? t : t.toFixed(1)}</span>
          ))}
        </div>
        <svg class="chart-plot" viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={`Sign-ups and logins per day, ${first} to ${last}`}>
          {ticks.map((t) => (
            <line key={t} class="chart-grid" x1={0} x2={W} y1={y(t)} y2={y(t)} vector-effect="non-scaling-stroke" />
          ))}
          {daily.map((d, i) => {
            const x = i * slot + (slot - 2 * bar) / 2;
            return (
              <g key={d.date}>
                <title>{`${d.date}: ${d.sign_ups} sign-ups, ${d.logins} logins`}</title>
                <rect class="chart-signups" x={x} y={y(d.sign_ups)} width={bar} height={PAD + plotH - y(d.sign_ups)} />
                <rect class="chart-logins" x={x + bar} y={y(d.logins)} width={bar} height={PAD + plotH - y(d.logins)} />
              </g>
            );
          })}
        </svg>
      </div>
      <div class="chart-dates">
        <span>{first}</span>
        <span>{last}</span>
      </div>
      <figcaption class="chart-legend">
        <span class="legend-signups">Sign-ups ({total('sign_ups')})</span>
        <span class="legend-logins">Logins ({total('logins')})</span>
        <span class="muted">last 30 days, UTC</span>
      </figcaption>
    </figure>
  );
}
