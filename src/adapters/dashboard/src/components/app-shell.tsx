// An application's pages: its name and a left nav (a menu button on phones), then the page.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { appPath, get } from '../api.js';
import { appHref, type AppPage } from '../router.js';
import type { Application } from '../types.js';
import { ErrorBanner } from './error-banner.js';
import { Link } from './link.js';
import { useLoad } from './use-load.js';

const NAV: Array<[AppPage, string]> = [
  ['overview', 'Overview'],
  ['users', 'Users'],
  ['plans', 'Plans'],
  ['licenses', 'Licenses'],
  ['files', 'Files'],
  ['announcements', 'Announcements'],
  ['variables', 'Variables'],
  ['bans', 'Bans'],
  ['webhooks', 'Webhooks'],
  ['activity', 'Activity'],
  ['settings', 'Settings'],
];

export interface AppPageProps {
  app: Application;
  onAppChange: (app: Application) => void;
}

export function AppShell({ appId, current, children }: { appId: string; current: AppPage; children: (props: AppPageProps) => ComponentChildren }) {
  const loaded = useLoad(() => get<Application>(appPath(appId)), [appId]);
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [current, appId]);
  const app = loaded.data;
  return (
    <div class="app-layout">
      <aside class={`side-nav${menuOpen ? ' open' : ''}`}>
        <div class="side-nav-head">
          <Link href="/dashboard/" class="back-link">
            ‹ All applications
          </Link>
          <div class="side-nav-title">
            <strong title={app?.name}>{app?.name ?? '…'}</strong>
            <button type="button" class="btn btn-small menu-toggle" aria-expanded={menuOpen} onClick={() => setMenuOpen(!menuOpen)}>
              {menuOpen ? 'Close menu' : 'Menu'}
            </button>
          </div>
        </div>
        <nav aria-label="Application">
          {NAV.map(([page, label]) => (
            <Link key={page} href={appHref(appId, page)} current={page === current} class="nav-item">
              {label}
            </Link>
          ))}
        </nav>
      </aside>
      <main class="content">
        <ErrorBanner error={loaded.error} />
        {app && children({ app, onAppChange: loaded.setData })}
      </main>
    </div>
  );
}
