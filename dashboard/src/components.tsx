import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiProblem } from './api';

/** An API error: its stable code, the message, the request id to quote, and the wait after a 429. */
export function ErrorBox({ problem }: { problem: unknown }) {
  if (!problem) return null;
  const p = problem instanceof ApiProblem ? problem : new ApiProblem(0, 'CLIENT_ERROR', String((problem as Error).message ?? problem), null, null);
  return (
    <div className="error" role="alert" data-testid="api-error">
      <p>
        <strong>{p.status === 429 ? 'Rate limit reached' : 'The request failed'}</strong>: {p.message}
      </p>
      {p.status === 429 && p.retryAfter !== null && <p data-testid="retry-after">Retry in {p.retryAfter} s.</p>}
      <dl className="inline">
        <dt>code</dt>
        <dd data-testid="error-code">{p.code}</dd>
        {p.status > 0 && (
          <>
            <dt>status</dt>
            <dd>{p.status}</dd>
          </>
        )}
        {p.requestId && (
          <>
            <dt>request_id</dt>
            <dd data-testid="request-id">{p.requestId}</dd>
          </>
        )}
      </dl>
    </div>
  );
}

export function Empty({ children }: { children: React.ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function Loading() {
  return (
    <p className="muted" role="status">
      Loading…
    </p>
  );
}

export function Pager({ page, perPage, total, onPage }: { page: number; perPage: number; total: number; onPage: (p: number) => void }) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  if (total <= perPage) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        Previous
      </button>
      <span>
        Page {page} of {pages} ({total})
      </span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={page >= pages}>
        Next
      </button>
    </nav>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = useCallback(async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone('copied');
    } catch {
      setDone('failed');
    }
  }, [text]);
  return (
    <button type="button" onClick={copy} className="secondary">
      {done === 'copied' ? 'Copied' : done === 'failed' ? 'Copy failed: select the text' : label}
    </button>
  );
}

/** Loads data for a page; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data?: T; problem?: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; problem?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const current = useRef(0);
  useEffect(() => {
    const mine = ++current.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === current.current && setState({ data, loading: false }),
      (problem) => mine === current.current && setState({ problem, loading: false }),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export const fmtDate = (iso: string | null | undefined) => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : '—');

/** A table's header row: one column per label, then an actions column named for screen readers only. */
export function TableHead({ columns, actions = false }: { columns: string[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th scope="col" key={c}>
            {c}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span className="sr-only">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
