/** Makes owner-written HTML safe to show to users: what the allow-list keeps, nothing else. */
export interface HtmlSanitizer {
  sanitize(html: string): string;
}
