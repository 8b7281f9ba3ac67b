// What use cases ask of their surroundings: the time and fresh ids. Instants are epoch milliseconds.
import type { Instant } from '../../domain/time.js';

export interface Clock {
  now(): Instant;
}

export interface Ids {
  uuid(): string;
}
