import { useState } from 'react';
import { api, call, type Schemas } from '../api';
import { ErrorBox, TableHead } from '../components';

type Verdict = Schemas['MatchVerdict'];
type Answer = Schemas['PersonMatchResponse'];

/** The inputs a row of a contact list holds; empty ones are not sent. */
const FIELDS = [
  { name: 'name', label: 'Name', placeholder: 'Jane Doe', required: true },
  { name: 'company', label: 'Company', placeholder: 'Acme Corp' },
  { name: 'email', label: 'Work email', placeholder: 'jane.doe@acme.com' },
  { name: 'company_domain', label: 'Company website', placeholder: 'acme.com' },
  { name: 'location', label: 'Location', placeholder: 'Boston' },
] as const;
type Field = (typeof FIELDS)[number]['name'];

const percent = (p: number) => `${(p * 100).toFixed(p >= 0.995 && p < 1 ? 1 : 0)}%`;

/**
 * Find a person by name and company (POST /person/match): the best record with its likelihood and
 * the evidence (which inputs agreed, how strongly), and the other candidates for review.
 */
export function MatchFinder() {
  const [values, setValues] = useState<Record<Field, string>>({ name: '', company: '', email: '', company_domain: '', location: '' });
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [problem, setProblem] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const find = async (e: React.FormEvent) => {
    e.preventDefault();
    setProblem(null);
    setAnswer(null);
    setBusy(true);
    const body: Schemas['PersonMatchRequest'] = { candidates: 5 };
    for (const f of FIELDS) if (values[f.name].trim()) body[f.name] = values[f.name].trim();
    try {
      setAnswer(await call(api.POST('/person/match', { body })));
    } catch (err) {
      setProblem(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="match-title" className="match">
      <h3 id="match-title">Find a person by name and company</h3>
      <p className="muted">
        What a contact list holds: a name with a company, a work email, a website or a city. The answer is the record most likely meant, with
        the probability that it is, and why.
      </p>
      <form className="row" onSubmit={find} aria-label="Find a person by name and company">
        {FIELDS.map((f) => (
          <label key={f.name}>
            {f.label}
            <input
              name={`match-${f.name}`}
              value={values[f.name]}
              placeholder={f.placeholder}
              required={'required' in f && f.required}
              onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))}
            />
          </label>
        ))}
        <button type="submit" disabled={busy}>
          Find
        </button>
      </form>
      <ErrorBox problem={problem} />
      {answer && <MatchResult answer={answer} />}
    </section>
  );
}

function Likelihood({ match }: { match: Verdict }) {
  return (
    <span className={`badge ${match.likelihood >= 0.9 ? 'ok' : ''}`} data-testid="likelihood">
      likelihood {percent(match.likelihood)}
      {match.ambiguous ? ' · ambiguous' : ''}
    </span>
  );
}

/** Public text, rendered as text only (React escapes every value). */
function MatchResult({ answer }: { answer: Answer }) {
  const r = answer.data;
  const rows: [string, unknown][] = [
    ['Name', r.full_name],
    ['Title', r.current_title],
    ['Company', r.current_company],
    ['Location', [r.geo_city, r.geo_country].filter(Boolean).join(', ')],
    ['Profile', r.network_url],
  ];
  return (
    <article className="record" data-testid="match" aria-label="Best match">
      <p>
        <Likelihood match={answer.match} />
      </p>
      {answer.match.ambiguous && (
        <p data-testid="ambiguous">Another record fits these inputs nearly as well: the likelihood is shared between them.</p>
      )}
      <dl>
        {rows.map(([label, value]) => (
          <div key={label} className="field">
            <dt>{label}</dt>
            <dd>{value === null || value === undefined || value === '' ? '—' : String(value)}</dd>
          </div>
        ))}
      </dl>
      <table data-testid="evidence">
        <caption className="sr-only">Evidence: how each input compared with the record</caption>
        <TableHead columns={['Input', 'Agreement', 'You sent', 'The record has', 'Weight (log2)']} />
        <tbody>
          {answer.match.evidence.map((e, k) => (
            <tr key={k}>
              <td>{e.field}</td>
              <td>{e.level}</td>
              <td>{e.input ?? '—'}</td>
              <td>{e.record ?? '—'}</td>
              <td>{e.weight > 0 ? `+${e.weight.toFixed(1)}` : e.weight.toFixed(1)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {answer.candidates && answer.candidates.length > 1 && (
        <table data-testid="candidates">
          <caption>Candidates above the bar</caption>
          <TableHead columns={['Likelihood', 'Name', 'Title', 'Company', 'City']} />
          <tbody>
            {answer.candidates.map((c) => (
              <tr key={c.data.id}>
                <td>{percent(c.match.likelihood)}</td>
                <td>{c.data.full_name}</td>
                <td>{c.data.current_title ?? '—'}</td>
                <td>{c.data.current_company ?? '—'}</td>
                <td>{c.data.geo_city ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}
