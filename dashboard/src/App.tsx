import { useCallback, useEffect, useState } from 'react';
import { api, ApiProblem, call, SIGNED_OUT_EVENT, type Schemas } from './api';
import { ErrorBox, Loading } from './components';
import { Explorer } from './pages/Explorer';
import { Lists } from './pages/Lists';
import { Keys } from './pages/Keys';
import { Monitors, MonitorSecret, type SecretIntent } from './pages/Monitors';
import { Overview } from './pages/Overview';
import { SignIn } from './pages/SignIn';

const PAGES = [
  { route: 'overview', label: 'Overview' },
  { route: 'keys', label: 'API keys' },
  { route: 'monitors', label: 'Monitors' },
  { route: 'explorer', label: 'Explorer' },
  { route: 'lists', label: 'Lists' },
] as const;
type Route = (typeof PAGES)[number]['route'] | 'monitor-secret';

const routeOf = (hash: string): Route => {
  const name = hash.replace(/^#\/?/, '').split(/[?&]/)[0];
  return name === 'monitor-secret' || PAGES.some((p) => p.route === name) ? (name as Route) : 'overview';
};

export function App() {
  const [session, setSession] = useState<Schemas['Session'] | null | undefined>(undefined);
  const [problem, setProblem] = useState<unknown>(null);
  const [route, setRoute] = useState<Route>(routeOf(window.location.hash));
  const [secretIntent, setSecretIntent] = useState<SecretIntent | null>(null);

  useEffect(() => {
    const onHash = () => {
      // A sign-in link opened in a tab that already shows the dashboard: start afresh with it.
      if (/(?:^#|&)token=/.test(window.location.hash)) window.location.reload();
      else setRoute(routeOf(window.location.hash));
    };
    const onSignedOut = () => setSession(null);
    window.addEventListener('hashchange', onHash);
    window.addEventListener(SIGNED_OUT_EVENT, onSignedOut);
    return () => {
      window.removeEventListener('hashchange', onHash);
      window.removeEventListener(SIGNED_OUT_EVENT, onSignedOut);
    };
  }, []);

  useEffect(() => {
    // A sign-in link: the SignIn screen consumes its token first.
    if (/(?:^#|&)token=/.test(window.location.hash)) {
      setSession(null);
      return;
    }
    call(api.GET('/workspace/sessions/current')).then(
      (res) => setSession(res.session),
      (err) => {
        if (err instanceof ApiProblem && err.status === 401) setSession(null);
        else setProblem(err);
      },
    );
  }, []);

  // Leaving the secret screen forgets what it showed.
  useEffect(() => {
    if (route !== 'monitor-secret') setSecretIntent(null);
  }, [route]);

  const go = (to: Route) => {
    window.location.hash = `#/${to}`;
    setRoute(to);
  };
  const onSignedIn = useCallback((s: Schemas['Session']) => {
    setSession(s);
    setRoute(routeOf(window.location.hash));
  }, []);
  const signOut = async () => {
    try {
      await call(api.DELETE('/workspace/sessions/current'));
    } catch {
      // 401: already signed out
    }
    setSession(null);
  };

  if (problem) return <main id="main"><ErrorBox problem={problem} /></main>;
  if (session === undefined) return <main id="main"><Loading /></main>;
  if (session === null) return <SignIn onSignedIn={onSignedIn} />;
  return (
    <>
      <header className="top">
        <h1 className="brand">
          <span className="logo" aria-hidden="true">◆</span> Enrich <span className="sr-only">dashboard</span>
        </h1>
        <nav aria-label="Dashboard">
          {PAGES.map((p) => (
            <a key={p.route} href={`#/${p.route}`} aria-current={route === p.route || (route === 'monitor-secret' && p.route === 'monitors') ? 'page' : undefined}>
              {p.label}
            </a>
          ))}
        </nav>
        <div className="who" data-testid="who">
          <span>
            {session.account.name} ({session.account.role}) · {session.workspace.name}
          </span>
          <button type="button" className="secondary" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        {route === 'overview' && <Overview />}
        {route === 'keys' && <Keys role={session.account.role} />}
        {route === 'monitors' && (
          <Monitors
            onSecret={(intent) => {
              setSecretIntent(intent);
              window.location.hash = '#/monitor-secret';
              setRoute('monitor-secret');
            }}
          />
        )}
        {route === 'monitor-secret' && <MonitorSecret key={secretIntent?.monitorId ?? 'none'} intent={secretIntent} onDone={() => go('monitors')} />}
        {route === 'explorer' && <Explorer />}
        {route === 'lists' && <Lists />}
      </main>
    </>
  );
}
