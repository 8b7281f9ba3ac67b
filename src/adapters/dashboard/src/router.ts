// Client-side routes under /dashboard/ with the History API; the server answers index.html for
// every such path (contract §3), so a reload lands on the same page.
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/dashboard';

export type Route =
  { page: 'signin' } | { page: 'applications' } | { page: 'new-application' } | { page: AppPage; appId: string } | { page: 'user'; appId: string; userId: string } | { page: 'not-found' };

export const APP_PAGES = ['overview', 'settings', 'plans', 'licenses', 'users', 'bans', 'variables', 'announcements', 'files', 'webhooks', 'activity'] as const;
export type AppPage = (typeof APP_PAGES)[number];

export function parseRoute(pathname: string): Route {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const parts = rest.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return { page: 'applications' };
  if (parts[0] === 'signin' && parts.length === 1) return { page: 'signin' };
  if (parts[0] === 'apps' && parts[1] === 'new' && parts.length === 2) return { page: 'new-application' };
  if (parts[0] === 'apps' && parts[1]) {
    const appId = parts[1];
    if (parts.length === 2) return { page: 'overview', appId };
    if (parts[2] === 'users' && parts[3] && parts.length === 4) return { page: 'user', appId, userId: parts[3] };
    const page = APP_PAGES.find((p) => p === parts[2]);
    if (page && parts.length === 3) return { page, appId };
  }
  return { page: 'not-found' };
}

export function appHref(appId: string, page: AppPage = 'overview'): string {
  return `${BASE}/apps/${encodeURIComponent(appId)}${page === 'overview' ? '' : `/${page}`}`;
}

export function userHref(appId: string, userId: string): string {
  return `${appHref(appId, 'users')}/${encodeURIComponent(userId)}`;
}

const listeners = new Set<() => void>();

export function navigate(href: string, replace = false): void {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  window.scrollTo(0, 0);
  listeners.forEach((l) => l());
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname));
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** A click on an in-app link: navigate without a page load (new tabs and modified clicks pass through). */
export function onLinkClick(e: MouseEvent): void {
  const anchor = (e.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!anchor || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(anchor.getAttribute('href') ?? BASE + '/');
}
