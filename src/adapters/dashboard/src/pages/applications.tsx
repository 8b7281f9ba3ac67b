import { get } from '../api.js';
import { Badge } from '../components/badge.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Empty } from '../components/fields.js';
import { Link } from '../components/link.js';
import { Pager, usePage } from '../components/pager.js';
import { useLoad } from '../components/use-load.js';
import { formatDateTime } from '../format.js';
import { appHref, BASE } from '../router.js';
import type { Application } from '../types.js';

export function ApplicationsPage() {
  const apps = useLoad(() => get<Application[]>('/applications'), []);
  const { rows, page, pages, setPage } = usePage(apps.data ?? []);
  return (
    <main class="content narrow">
      <div class="page-head">
        <h1>Applications</h1>
        <Link href={`${BASE}/apps/new`} class="btn btn-primary">
          New application
        </Link>
      </div>
      <ErrorBanner error={apps.error} />
      {apps.data && apps.data.length === 0 && <Empty>No applications yet. Create one to get its API keys.</Empty>}
      {rows.length > 0 && (
        <ul class="app-list">
          {rows.map((app) => (
            <li key={app.id}>
              <Link href={appHref(app.id)} class="app-card">
                <strong>{app.name}</strong>
                <span class="muted mono">{app.api_key}</span>
                <span class="app-card-meta">
                  {app.anonymous_access && <Badge tone="blue">anonymous</Badge>}
                  {app.device_auth && <Badge>device auth</Badge>}
                  {app.legacy_auth && <Badge tone="amber">legacy auth</Badge>}
                  <span class="muted">created {formatDateTime(app.created_at)}</span>
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      <Pager page={page} pages={pages} onPage={setPage} />
    </main>
  );
}
