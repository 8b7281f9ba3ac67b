// The sign-in page; on a fresh install it says how to create the first owner (GET /setup), and
// it always shows the way back from a lost password or console token (the CLI's owner commands).
import { useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorBanner } from '../components/error-banner.js';
import { TextField } from '../components/fields.js';
import { useAction, useLoad } from '../components/use-load.js';
import { OWNER_CREATE, OWNER_LOGIN, OWNER_RESET_PASSWORD } from '../owner-commands.js';
import type { Session } from '../types.js';

export function SignInPage({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const setup = useLoad(() => get<{ owner_exists: boolean }>('/setup'), []);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      try {
        onSignedIn(await post<Session>('/session', { email: email.trim(), password }));
      } finally {
        // The first owner may have been created since the page loaded.
        if (setup.data?.owner_exists === false) void setup.reload();
      }
    });
  };
  return (
    <main class="signin">
      <form class="card signin-card" onSubmit={submit}>
        <h1>Gatehouse</h1>
        <p class="muted">Sign in to manage your applications.</p>
        {setup.data?.owner_exists === false && <NoOwnerYet />}
        <ErrorBanner error={action.error} />
        <TextField label="Email" name="email" type="email" value={email} onInput={setEmail} required autoComplete="username" />
        <TextField label="Password" name="password" type="password" value={password} onInput={setPassword} required autoComplete="current-password" />
        <button type="submit" class="btn btn-primary btn-block" disabled={action.busy}>
          {action.busy ? 'Signing in…' : 'Sign in'}
        </button>
        <details class="lost-password">
          <summary>Forgot your password?</summary>
          <p>There is no email reset: on the server's machine, in the Gatehouse checkout, set a new one (it asks for it, and lifts a sign-in lock):</p>
          <Command text={OWNER_RESET_PASSWORD} />
          <p>For a new console token for scripts, with the password you have:</p>
          <Command text={OWNER_LOGIN} />
        </details>
      </form>
    </main>
  );
}

function NoOwnerYet() {
  return (
    <div class="banner banner-warning" role="status" data-no-owner>
      <strong>No owner yet.</strong> Create the first one on the server's machine, in the Gatehouse checkout (it asks for a password), then sign in here:
      <Command text={OWNER_CREATE} />
      <small>
        Run it with the server's settings: the same <code>GATEHOUSE_DATA_DIR</code>, or <code>DATABASE_URL</code> and master key.
      </small>
    </div>
  );
}

function Command({ text }: { text: string }) {
  return (
    <div class="command">
      <code>{text}</code>
      <CopyButton value={text} />
    </div>
  );
}
