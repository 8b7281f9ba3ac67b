import sanitizeHtml from 'sanitize-html';
import type { HtmlSanitizer } from '../../application/ports/html-sanitizer.js';

/** The allow-list of announcement HTML, which owners write and every client application shows
 * (docs/api.md, "Announcements", lists it). sanitize-html parses with htmlparser2, a real HTML
 * tokenizer, so markup tricks that fool patterns do not get through. */
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'div',
    'span',
    'b',
    'strong',
    'i',
    'em',
    'u',
    's',
    'del',
    'ins',
    'mark',
    'small',
    'sub',
    'sup',
    'abbr',
    'code',
    'pre',
    'blockquote',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'ul',
    'ol',
    'li',
    'dl',
    'dt',
    'dd',
    'table',
    'thead',
    'tbody',
    'tfoot',
    'tr',
    'th',
    'td',
    'caption',
    'a',
    'img',
  ],
  allowedAttributes: {
    a: ['href', 'title'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    abbr: ['title'],
    th: ['colspan', 'rowspan'],
    td: ['colspan', 'rowspan'],
    ol: ['start'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'svg', 'math', 'template', 'iframe', 'object'],
};

export function createAnnouncementSanitizer(): HtmlSanitizer {
  return { sanitize: (html) => sanitizeHtml(html, OPTIONS) };
}
