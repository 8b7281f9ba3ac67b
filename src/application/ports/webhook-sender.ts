// Calling webhook receivers (docs/api.md, Webhooks): the server-side request forgery rule, and the
// signed POST itself.
import type { Instant } from '../../domain/time.js';

export interface WebhookMessage {
  url: string;
  /** The event id: webhook-id. */
  id: string;
  /** The attempt's instant: webhook-timestamp, in seconds. */
  at: Instant;
  /** The JSON body, as sent. */
  body: string;
  /** Plain `whsec_` secrets to sign with, the current one first. */
  secrets: string[];
}

export interface SendResult {
  /** Null when no answer came. */
  statusCode: number | null;
  retryAfter: string | null;
  latencyMs: number;
  /** Why no answer came (a timeout, a refused address, a network error). */
  error: string | null;
  /** The first 2 KB of the answer. */
  responseBody: string | null;
}

export interface WebhookSender {
  /** Throws WEBHOOK_URL_REFUSED when `url` may not receive webhooks (a lookup of its name included). */
  checkUrl(url: string): Promise<void>;
  /** One attempt: resolves and checks the address again, connects to it, never follows a redirect. Never throws. */
  send(message: WebhookMessage): Promise<SendResult>;
}
