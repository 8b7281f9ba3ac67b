// Announcement HTML is written by owners but shown to users, so it is rendered only through DOMPurify
// (a maintained sanitizer beats a hand-written one). Beyond its defaults, style attributes (the CSP
// would refuse them anyway), forms and frames are dropped.
import DOMPurify from 'dompurify';

export function sanitizeAnnouncement(html: string): string {
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'frame', 'object', 'embed'],
    FORBID_ATTR: ['style'],
    ALLOW_DATA_ATTR: false,
  });
}

// Links in the preview open elsewhere and tell the target nothing about the dashboard.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});
