import { useEffect, useRef, useState } from 'react';
import { api, call, type Schemas } from '../api';
import { ErrorBox } from '../components';

/** Reads a sign-in link's token from the fragment (never sent to the server in a URL) and removes it at once. */
function takeLinkToken(): string | null {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  if (!match) return null;
  window.history.replaceState(null, '', `${window.location.pathname}#/overview`);
  return match[1];
}

export function SignIn({ onSignedIn }: { onSignedIn: (s: Schemas['Session']) => void }) {
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const linkTried = useRef(false);

  useEffect(() => {
    if (linkTried.current) return;
    linkTried.current = true;
    const token = takeLinkToken();
    if (!token) return;
    setBusy(true);
    call(api.POST('/workspace/sessions', { body: { token } })).then(
      (res) => onSignedIn(res.session),
      (err) => {
        setProblem(err);
        setBusy(false);
      },
    );
  }, [onSignedIn]);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setProblem(null);
    setBusy(true);
    const apiKey = key.trim();
    setKey(''); // the key is not kept anywhere: not in state, storage or the URL
    try {
      onSignedIn((await call(api.POST('/workspace/sessions', { body: { api_key: apiKey } }))).session);
    } catch (err) {
      setProblem(err);
      setBusy(false);
    }
  };

  return (
    <main className="signin" id="main">
      <h1>Enrich dashboard</h1>
      <p>
        Open the sign-in link printed by <code>npm start</code> or <code>npx enrich dashboard link --workspace ID</code>, or sign in with an owner or
        member API key.
      </p>
      <ErrorBox problem={problem} />
      <form onSubmit={submit} className="stack" aria-label="Sign in with an API key">
        <label>
          API key
          <input type="password" value={key} onChange={(e) => setKey(e.target.value)} name="api_key" autoComplete="off" required placeholder="ik_live_…" />
        </label>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
