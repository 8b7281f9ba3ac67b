// Instants are epoch milliseconds throughout the domain; adapters convert at the edges.
export type Instant = number;

export const MINUTE_MS = 60_000;

// The last texts made, by instant: every answer shows the server time and a member's expiry, and
// many answers fall in one millisecond (docs/performance-log.md, app_context). Same text as without.
const isoTexts: Array<[Instant, string] | undefined> = new Array<[Instant, string] | undefined>(256);

export const toIso = (t: Instant): string => {
  const slot = t & 255;
  const known = isoTexts[slot];
  if (known !== undefined && known[0] === t) return known[1];
  const text = new Date(t).toISOString();
  isoTexts[slot] = [t, text];
  return text;
};

/** The UTC calendar date of an instant, YYYY-MM-DD. */
export const utcDate = (t: Instant): string => toIso(t).slice(0, 10);
