import { appPath, get } from '../api.js';
import type { AppPageProps } from '../components/app-shell.js';
import { DailyChart } from '../components/chart.js';
import { ErrorBanner } from '../components/error-banner.js';
import { Card } from '../components/fields.js';
import { useLoad } from '../components/use-load.js';
import { formatBytes } from '../format.js';
import type { Overview } from '../types.js';

function Stat({ label, value }: { label: string; value: string | number }) {
  return (
    <div class="stat">
      <span class="stat-value">{value}</span>
      <span class="stat-label">{label}</span>
    </div>
  );
}

export function OverviewPage({ app }: AppPageProps) {
  const overview = useLoad(() => get<Overview>(appPath(app.id, '/overview')), [app.id]);
  const o = overview.data;
  return (
    <>
      <h1>{app.name}</h1>
      <ErrorBanner error={overview.error} />
      {o && (
        <>
          <div class="stats" data-testid="overview-stats">
            <Stat label="Users" value={o.users} />
            <Stat label="Active memberships" value={o.active_memberships} />
            <Stat label="Licenses used" value={o.licenses.used} />
            <Stat label="Licenses unused" value={o.licenses.unused} />
            <Stat label="Storage used" value={formatBytes(o.storage_bytes)} />
          </div>
          <Card title="Sign-ups and logins per day">
            <DailyChart daily={o.daily} />
          </Card>
        </>
      )}
    </>
  );
}
