// Instants are epoch milliseconds throughout the domain; adapters convert at the edges.
export type Instant = number;

export const MINUTE_MS = 60_000;

/** The instant as ISO 8601 text in UTC. */
export const toIso = (t: Instant): string => new Date(t).toISOString();

/** The UTC calendar date of an instant, YYYY-MM-DD. */
export const utcDate = (t: Instant): string => toIso(t).slice(0, 10);
