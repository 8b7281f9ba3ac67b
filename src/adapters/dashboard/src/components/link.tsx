import type { ComponentChildren } from 'preact';
import { onLinkClick } from '../router.js';

export function Link({ href, children, class: className, current }: { href: string; children: ComponentChildren; class?: string; current?: boolean }) {
  return (
    <a href={href} class={className} aria-current={current ? 'page' : undefined} onClick={onLinkClick}>
      {children}
    </a>
  );
}
