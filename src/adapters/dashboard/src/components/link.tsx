import type { ComponentChildren } from 'preact';
import { onLinkClick } from '../router.js';

export function Link({ href, children, class: className, current, title }: { href: string; children: ComponentChildren; class?: string; current?: boolean; title?: string }) {
  return (
    <a href={href} class={className} title={title} aria-current={current ? 'page' : undefined} onClick={onLinkClick}>
      {children}
    </a>
  );
}
