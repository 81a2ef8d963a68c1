import { useState } from 'react';
import { api, call, type Schemas } from '../api';
import { ErrorBox, fmtDate } from '../components';
import { MatchFinder } from './MatchFinder';

type Kind = 'person' | 'company';
type Found =
  | { kind: 'person'; record: Schemas['PersonResult']; source?: string; cost?: number }
  | { kind: 'company'; record: Schemas['CompanyResult']; source?: string; cost?: number };

/** A profile or company page URL is looked up by `network_url`, anything else as a username. */
function identifier(raw: string): { network_url: string } | { username: string } {
  const value = raw.trim();
  return /^https?:\/\//i.test(value) ? { network_url: value } : { username: value };
}

export function Explorer() {
  const [kind, setKind] = useState<Kind>('person');
  const [query, setQuery] = useState('');
  const [asked, setAsked] = useState<{ kind: Kind; query: string } | null>(null);
  const [found, setFound] = useState<Found | null>(null);
  const [problem, setProblem] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [confirmLive, setConfirmLive] = useState(false);

  const lookup = async (e: React.FormEvent) => {
    e.preventDefault();
    setProblem(null);
    setFound(null);
    setConfirmLive(false);
    setBusy(true);
    const q = { kind, query };
    setAsked(q);
    try {
      if (kind === 'person') setFound({ kind, record: (await call(api.GET('/person', { params: { query: identifier(query) } }))).data });
      else setFound({ kind, record: (await call(api.GET('/company', { params: { query: identifier(query) } }))).data });
    } catch (err) {
      setProblem(err);
    } finally {
      setBusy(false);
    }
  };

  const refreshLive = async () => {
    if (!asked) return;
    setProblem(null);
    setConfirmLive(false);
    setBusy(true);
    try {
      const query = { ...identifier(asked.query), max_age: 0 };
      if (asked.kind === 'person') {
        const res = await call(api.GET('/person/realtime', { params: { query } }));
        setFound({ kind: 'person', record: res.data, source: res.source, cost: res.cost_usd });
      } else {
        const res = await call(api.GET('/company/realtime', { params: { query } }));
        setFound({ kind: 'company', record: res.data, source: res.source, cost: res.cost_usd });
      }
    } catch (err) {
      setProblem(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="explorer-title">
      <h2 id="explorer-title">Explorer</h2>
      <form className="row" onSubmit={lookup} aria-label="Look up a record">
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.target.value as Kind)} name="kind">
            <option value="person">person</option>
            <option value="company">company</option>
          </select>
        </label>
        <label className="grow">
          Profile URL or username
          <input value={query} onChange={(e) => setQuery(e.target.value)} name="query" required placeholder="priya-raman-4b2a91 or https://www.linkedin.com/in/…" />
        </label>
        <button type="submit" disabled={busy}>
          Look up
        </button>
      </form>
      <ErrorBox problem={problem} />
      {asked && !busy && (
        <div className="live">
          {confirmLive ? (
            <p className="confirm" data-testid="live-confirm">
              A refresh from the live source is a realtime call: it costs <strong>0.001 USD</strong>, added to this period's usage.{' '}
              <button type="button" onClick={refreshLive}>
                Refresh for 0.001 USD
              </button>{' '}
              <button type="button" className="secondary" onClick={() => setConfirmLive(false)}>
                Cancel
              </button>
            </p>
          ) : (
            <button type="button" className="secondary" onClick={() => setConfirmLive(true)}>
              Refresh from the live source…
            </button>
          )}
        </div>
      )}
      {found && <Record found={found} />}
      <MatchFinder />
    </section>
  );
}

/** Public text, rendered as text only: every value goes through React's escaping, never as HTML. */
function Record({ found }: { found: Found }) {
  const r = found.record;
  const rows: [string, unknown][] =
    found.kind === 'person'
      ? [
          ['Name', found.record.full_name],
          ['Headline', found.record.headline],
          ['Title', found.record.current_title],
          ['Company', found.record.current_company],
          ['Location', [found.record.geo_city, found.record.geo_country].filter(Boolean).join(', ')],
          ['Summary', found.record.summary],
          ['Profile', found.record.network_url],
        ]
      : [
          ['Name', found.record.name],
          ['Tagline', found.record.tagline],
          ['Industry', found.record.industries?.join(', ')],
          ['Headquarters', [found.record.hq_city, found.record.hq_country].filter(Boolean).join(', ')],
          ['Staff', found.record.staff_count],
          ['Description', found.record.description],
          ['Page', found.record.network_url],
        ];
  return (
    <article className="record" data-testid="record" aria-label="Record">
      <p>
        <span className="badge ok" data-testid="fetched-at">
          fetched_at {fmtDate(r.fetched_at)}
        </span>{' '}
        {found.source && (
          <span className="muted" data-testid="record-source">
            source: {found.source}, cost {found.cost?.toFixed(3)} USD
          </span>
        )}
      </p>
      <dl>
        {rows.map(([label, value]) => (
          <div key={label} className="field">
            <dt>{label}</dt>
            <dd>{value === null || value === undefined || value === '' ? '—' : String(value)}</dd>
          </div>
        ))}
      </dl>
      <details>
        <summary>Whole record (JSON)</summary>
        <pre className="snippet">{JSON.stringify(r, null, 2)}</pre>
      </details>
    </article>
  );
}
