// The app: learn whether a console session runs (the cookie), then route.
import type { FunctionComponent } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { del, get, setCsrfToken, whenSignedOut } from './api.js';
import { AppShell, type AppPageProps } from './components/app-shell.js';
import { ConfirmHost } from './components/confirm.js';
import { Link } from './components/link.js';
import { AnnouncementsPage } from './pages/announcements.js';
import { ActivityPage } from './pages/activity.js';
import { ApplicationsPage } from './pages/applications.js';
import { BansPage } from './pages/bans.js';
import { FilesPage } from './pages/files.js';
import { LicensesPage } from './pages/licenses.js';
import { NewApplicationPage } from './pages/new-application.js';
import { OverviewPage } from './pages/overview.js';
import { SettingsPage } from './pages/settings.js';
import { SignInPage } from './pages/sign-in.js';
import { UserPage } from './pages/user.js';
import { UsersPage } from './pages/users.js';
import { PlansPage } from './pages/plans.js';
import { VariablesPage } from './pages/variables.js';
import { WebhooksPage } from './pages/webhooks.js';
import { BASE, navigate, useRoute, type AppPage, type Route } from './router.js';
import type { Owner, Session } from './types.js';

type SessionState = { state: 'loading' } | { state: 'signed-out' } | { state: 'signed-in'; owner: Owner };

export function App() {
  const route = useRoute();
  const [session, setSession] = useState<SessionState>({ state: 'loading' });

  const signedIn = (s: Session) => {
    setCsrfToken(s.csrf_token);
    setSession({ state: 'signed-in', owner: s.owner });
  };
  const signedOut = () => {
    setCsrfToken(null);
    setSession({ state: 'signed-out' });
  };

  useEffect(() => {
    whenSignedOut(signedOut);
    get<Session>('/session').then(signedIn, signedOut);
  }, []);

  // Signed out (or the session ended), the address becomes /signin; signing in goes back to
  // where the owner was.
  const returnTo = useRef(`${BASE}/`);
  useEffect(() => {
    if (session.state === 'signed-out' && route.page !== 'signin') {
      returnTo.current = location.pathname + location.search;
      navigate(`${BASE}/signin`, true);
    }
    if (session.state === 'signed-in' && route.page === 'signin') navigate(returnTo.current, true);
  }, [session.state, route.page]);

  const signOut = async () => {
    try {
      await del('/session');
    } finally {
      // A deliberate sign-out starts the next session at the applications.
      returnTo.current = `${BASE}/`;
      navigate(`${BASE}/signin`, true);
      signedOut();
    }
  };

  if (session.state === 'loading') return <div class="splash">Loading…</div>;
  if (session.state === 'signed-out') return <SignInPage onSignedIn={signedIn} />;
  return (
    <div class="shell">
      <header class="topbar">
        <Link href={`${BASE}/`} class="brand">
          Gatehouse
        </Link>
        <div class="topbar-right">
          <span class="owner-email" title={session.owner.email}>
            {session.owner.email}
          </span>
          <button type="button" class="btn btn-small" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <Page route={route} />
      <ConfirmHost />
    </div>
  );
}

/** Each of an application's pages, inside its shell. */
const APP_PAGE_VIEWS: Record<AppPage, FunctionComponent<AppPageProps>> = {
  overview: OverviewPage,
  settings: SettingsPage,
  plans: PlansPage,
  licenses: LicensesPage,
  users: UsersPage,
  bans: BansPage,
  variables: VariablesPage,
  announcements: AnnouncementsPage,
  files: FilesPage,
  webhooks: WebhooksPage,
  activity: ActivityPage,
};

function Page({ route }: { route: Route }) {
  switch (route.page) {
    case 'signin':
    case 'applications':
      return <ApplicationsPage />;
    case 'new-application':
      return <NewApplicationPage />;
    case 'not-found':
      return (
        <main class="content narrow">
          <h1>Page not found</h1>
          <p>
            <Link href={`${BASE}/`}>Back to your applications</Link>
          </p>
        </main>
      );
    case 'user':
      return (
        <AppShell appId={route.appId} current="users">
          {(p) => <UserPage {...p} userId={route.userId} />}
        </AppShell>
      );
    default: {
      const AppPageView = APP_PAGE_VIEWS[route.page];
      return (
        <AppShell appId={route.appId} current={route.page}>
          {(p) => <AppPageView {...p} />}
        </AppShell>
      );
    }
  }
}
