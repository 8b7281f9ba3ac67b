import { useState } from 'preact/hooks';
import { post } from '../api.js';
import { ErrorBanner } from '../components/error-banner.js';
import { TextField } from '../components/fields.js';
import { useAction } from '../components/use-load.js';
import type { Session } from '../types.js';

export function SignInPage({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => onSignedIn(await post<Session>('/session', { email: email.trim(), password })));
  };
  return (
    <main class="signin">
      <form class="card signin-card" onSubmit={submit}>
        <h1>Gatehouse</h1>
        <p class="muted">Sign in to manage your applications.</p>
        <ErrorBanner error={action.error} />
        <TextField label="Email" name="email" type="email" value={email} onInput={setEmail} required autoComplete="username" />
        <TextField label="Password" name="password" type="password" value={password} onInput={setPassword} required autoComplete="current-password" />
        <button type="submit" class="btn btn-primary btn-block" disabled={action.busy}>
          {action.busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
