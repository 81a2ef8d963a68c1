import { useEffect, useRef, useState } from 'react';
import { api, call, type Schemas } from '../api';
import { CopyButton, Empty, ErrorBox, fmtDate, Loading, Pager, TableHead, useLoad } from '../components';

const PER_PAGE = 10;

/** What the secret screen shows, held in memory only: gone on reload or when leaving the screen. */
export type SecretIntent = { monitorId: string; kind: 'created' } | { monitorId: string; kind: 'rotated'; secret: string; previousUntil: string | null };

export function Monitors({ onSecret }: { onSecret: (intent: SecretIntent) => void }) {
  const monitors = useLoad(() => call(api.GET('/monitors')), []);
  const [page, setPage] = useState(1);
  const [problem, setProblem] = useState<unknown>(null);
  const [confirming, setConfirming] = useState<{ id: string; action: 'delete' | 'rotate' } | null>(null);
  const [logOf, setLogOf] = useState<Schemas['Monitor'] | null>(null);
  // Bumped when the open delivery log changes, so the rows' "last delivery" follow it.
  const [deliveriesTick, setDeliveriesTick] = useState(0);
  const [form, setForm] = useState({ type: 'person' as Schemas['MonitorType'], subject_url: '', webhook_url: '', label: '' });

  const create = async (e: React.FormEvent) => {
    e.preventDefault();
    setProblem(null);
    try {
      const body: Schemas['CreateMonitorRequest'] = { type: form.type, subject_url: form.subject_url.trim(), webhook_url: form.webhook_url.trim() };
      if (form.label.trim()) body.label = form.label.trim();
      const res = await call(api.POST('/monitors', { body }));
      onSecret({ monitorId: res.monitor.id, kind: 'created' });
    } catch (err) {
      setProblem(err);
    }
  };
  const remove = async (id: string) => {
    setProblem(null);
    try {
      await call(api.DELETE('/monitors/{id}', { params: { path: { id } } }));
      setConfirming(null);
      if (logOf?.id === id) setLogOf(null);
      monitors.reload();
    } catch (err) {
      setProblem(err);
    }
  };
  const rotate = async (id: string) => {
    setProblem(null);
    try {
      const res = await call(api.POST('/workspace/monitors/{id}/secret/rotate', { params: { path: { id } } }));
      onSecret({ monitorId: id, kind: 'rotated', secret: res.secret, previousUntil: res.previous_secret_valid_until });
    } catch (err) {
      setProblem(err);
    }
  };

  const all = monitors.data?.monitors ?? [];
  const shown = all.slice((page - 1) * PER_PAGE, page * PER_PAGE);
  return (
    <section aria-labelledby="monitors-title">
      <h2 id="monitors-title">Monitors</h2>
      <form className="stack" onSubmit={create} aria-label="Create a monitor">
        <div className="row">
          <label>
            Type
            <select value={form.type} onChange={(e) => setForm({ ...form, type: e.target.value as Schemas['MonitorType'] })} name="type">
              <option value="person">person</option>
              <option value="company">company</option>
            </select>
          </label>
          <label className="grow">
            Profile or company page URL
            <input value={form.subject_url} onChange={(e) => setForm({ ...form, subject_url: e.target.value })} name="subject_url" required placeholder="https://www.linkedin.com/in/…" />
          </label>
        </div>
        <div className="row">
          <label className="grow">
            Webhook URL (https)
            <input value={form.webhook_url} onChange={(e) => setForm({ ...form, webhook_url: e.target.value })} name="webhook_url" required placeholder="https://hooks.example.com/enrich" />
          </label>
          <label>
            Label (optional)
            <input value={form.label} onChange={(e) => setForm({ ...form, label: e.target.value })} name="label" maxLength={200} />
          </label>
          <button type="submit">Create monitor</button>
        </div>
      </form>
      <ErrorBox problem={problem} />
      {monitors.loading && !monitors.data && <Loading />}
      <ErrorBox problem={monitors.problem} />
      {monitors.data && all.length === 0 && <Empty>No monitors yet. Create one to receive signed webhooks when a person or company changes.</Empty>}
      {shown.length > 0 && (
        <table data-testid="monitors-table">
          <TableHead columns={['Subject', 'Label', 'Webhook', 'Events', 'State', 'Last delivery', 'Created']} actions />
          <tbody>
            {shown.map((m) => (
              <tr key={m.id} data-monitor={m.id}>
                <td>
                  <span className="muted">{m.type}</span> {m.subject_url}
                </td>
                <td>{m.label ?? '—'}</td>
                <td className="wrap">{m.webhook_url}</td>
                <td>{m.events.length}</td>
                <td>
                  <span className={`badge ${m.active ? 'ok' : 'bad'}`}>{m.active ? 'active' : 'inactive'}</span>
                </td>
                <td>
                  <LastDelivery key={deliveriesTick} monitorId={m.id} />
                </td>
                <td>{fmtDate(m.created_at)}</td>
                <td className="actions">
                  {confirming?.id === m.id ? (
                    <span className="confirm">
                      {confirming.action === 'delete' ? 'Delete this monitor?' : 'Issue a new secret? The old one keeps signing for 24 h.'}{' '}
                      <button type="button" className="danger" onClick={() => (confirming.action === 'delete' ? remove(m.id) : rotate(m.id))}>
                        Yes
                      </button>{' '}
                      <button type="button" className="secondary" onClick={() => setConfirming(null)}>
                        Cancel
                      </button>
                    </span>
                  ) : (
                    <>
                      <button type="button" className="secondary" onClick={() => setLogOf(logOf?.id === m.id ? null : m)} aria-expanded={logOf?.id === m.id} aria-label={`Deliveries of the monitor on ${m.subject_url}`}>
                        Deliveries
                      </button>{' '}
                      <button type="button" className="secondary" onClick={() => setConfirming({ id: m.id, action: 'rotate' })} aria-label={`Rotate secret of the monitor on ${m.subject_url}`}>
                        Rotate secret
                      </button>{' '}
                      <button type="button" className="secondary" onClick={() => setConfirming({ id: m.id, action: 'delete' })} aria-label={`Delete the monitor on ${m.subject_url}`}>
                        Delete
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={page} perPage={PER_PAGE} total={all.length} onPage={setPage} />
      {logOf && <DeliveryLog key={logOf.id} monitor={logOf} onChange={() => setDeliveriesTick((t) => t + 1)} />}
    </section>
  );
}

/** The newest delivery of a monitor (one small call per row shown). */
function LastDelivery({ monitorId }: { monitorId: string }) {
  const last = useLoad(() => call(api.GET('/monitors/{id}/deliveries', { params: { path: { id: monitorId }, query: { per_page: 1 } } })), [monitorId]);
  if (last.problem) return <span className="muted">unavailable</span>;
  const d = last.data?.results[0];
  if (!last.data) return <span className="muted">…</span>;
  if (!d) return <span className="muted">none yet</span>;
  const attempt = d.attempts[d.attempts.length - 1];
  return (
    <span>
      <span className={`badge ${d.state === 'succeeded' ? 'ok' : d.state === 'pending' ? '' : 'bad'}`}>{d.state}</span>{' '}
      <span className="muted">{fmtDate(attempt?.attempted_at ?? d.created_at)}</span>
    </span>
  );
}

/** One monitor's delivery log: attempts, status codes or errors, latency, next retry; a test event; redelivery. */
function DeliveryLog({ monitor, onChange }: { monitor: Schemas['Monitor']; onChange: () => void }) {
  const [page, setPage] = useState(1);
  const log = useLoad(async () => {
    const res = await call(api.GET('/monitors/{id}/deliveries', { params: { path: { id: monitor.id }, query: { page, per_page: PER_PAGE } } }));
    onChange();
    return res;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [monitor.id, page]);
  const [problem, setProblem] = useState<unknown>(null);
  const [note, setNote] = useState<string | null>(null);
  const sendTest = async () => {
    setProblem(null);
    try {
      const res = await call(api.POST('/monitors/{id}/test', { params: { path: { id: monitor.id } } }));
      setNote(`Test event ${res.delivery.id} queued.`);
      log.reload();
    } catch (err) {
      setProblem(err);
    }
  };
  const redeliver = async (deliveryId: string) => {
    setProblem(null);
    try {
      await call(api.POST('/monitors/{id}/deliveries/{delivery_id}/redeliver', { params: { path: { id: monitor.id, delivery_id: deliveryId } } }));
      setNote(`Delivery ${deliveryId} queued again (same webhook-id).`);
      log.reload();
    } catch (err) {
      setProblem(err);
    }
  };
  return (
    <section className="card" aria-labelledby="log-title" data-testid="delivery-log">
      <h3 id="log-title">Deliveries to {monitor.webhook_url}</h3>
      <p className="row">
        <button type="button" onClick={sendTest}>
          Send test event
        </button>
        <button type="button" className="secondary" onClick={log.reload}>
          Refresh
        </button>
        {note && (
          <span role="status" className="muted">
            {note}
          </span>
        )}
      </p>
      <ErrorBox problem={problem ?? log.problem} />
      {log.data && log.data.total === 0 && <Empty>No deliveries yet. Send a test event to check your receiver.</Empty>}
      {log.data && log.data.results.length > 0 && (
        <table>
          <TableHead columns={['Event', 'Created', 'State', 'Attempts', 'Last answer', 'Latency', 'Next retry']} actions />
          <tbody>
            {log.data.results.map((d) => {
              const last = d.attempts[d.attempts.length - 1];
              return (
                <tr key={d.id} data-delivery={d.id}>
                  <td>{d.event}</td>
                  <td>{fmtDate(d.created_at)}</td>
                  <td>
                    <span className={`badge ${d.state === 'succeeded' ? 'ok' : d.state === 'pending' ? '' : 'bad'}`} data-testid="delivery-state">
                      {d.state}
                    </span>
                  </td>
                  <td>{d.attempts.length}</td>
                  <td data-testid="delivery-answer">{last ? (last.status_code !== null ? `HTTP ${last.status_code}` : (last.error ?? 'error')) : '—'}</td>
                  <td>{last ? `${last.latency_ms} ms` : '—'}</td>
                  <td>{d.next_attempt_at ? fmtDate(d.next_attempt_at) : '—'}</td>
                  <td>
                    {d.state === 'failed' && (
                      <button type="button" className="secondary" onClick={() => redeliver(d.id)}>
                        Redeliver
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {log.data && <Pager page={page} perPage={PER_PAGE} total={log.data.total} onPage={setPage} />}
    </section>
  );
}

const SNIPPET = `import { Webhook } from 'standardwebhooks';

// The secret shown above, from your secret store (never in code).
const wh = new Webhook(process.env.ENRICH_WEBHOOK_SECRET);

// rawBody: the request body exactly as received (a string).
const event = wh.verify(rawBody, {
  'webhook-id': req.headers['webhook-id'],
  'webhook-timestamp': req.headers['webhook-timestamp'],
  'webhook-signature': req.headers['webhook-signature'],
}); // throws when the signature or timestamp is wrong`;

/** The one screen that shows a monitor's secret. Reloading it shows nothing: the server reveals once. */
export function MonitorSecret({ intent, onDone }: { intent: SecretIntent | null; onDone: () => void }) {
  const [state, setState] = useState<{ secret?: string; previousUntil?: string | null; problem?: unknown }>({});
  const asked = useRef(false);
  useEffect(() => {
    if (!intent || asked.current) return;
    asked.current = true;
    if (intent.kind === 'rotated') {
      setState({ secret: intent.secret, previousUntil: intent.previousUntil });
      return;
    }
    call(api.POST('/workspace/monitors/{id}/secret', { params: { path: { id: intent.monitorId } } })).then(
      (res) => setState({ secret: res.secret, previousUntil: res.previous_secret_valid_until }),
      (problem) => setState({ problem }),
    );
  }, [intent]);
  if (!intent) {
    return (
      <section aria-labelledby="secret-title">
        <h2 id="secret-title">Webhook secret</h2>
        <p data-testid="secret-gone">
          A monitor's secret is shown only once, right after it is created or rotated, and this page was left or reloaded since. If it was not saved,
          rotate the secret on the Monitors page to get a new one.
        </p>
        <button type="button" onClick={onDone}>
          Back to monitors
        </button>
      </section>
    );
  }
  return (
    <section aria-labelledby="secret-title">
      <h2 id="secret-title">{intent.kind === 'created' ? 'Monitor created: its webhook secret' : 'New webhook secret'}</h2>
      <ErrorBox problem={state.problem} />
      {!state.secret && !state.problem && <p role="status">Revealing…</p>}
      {state.secret && (
        <div className="reveal" data-testid="monitor-secret">
          <p>
            This is the <strong>only time</strong> this secret is shown. Store it in your secret manager now; deliveries to your webhook are signed with
            it (Standard Webhooks).
          </p>
          <p>
            <code className="secret" data-testid="monitor-secret-value">
              {state.secret}
            </code>
          </p>
          <p>
            <CopyButton text={state.secret} label="Copy secret" />
          </p>
          {state.previousUntil && <p className="muted">The previous secret keeps signing too until {fmtDate(state.previousUntil)}.</p>}
          <h3>Verify a delivery</h3>
          <pre className="snippet">{SNIPPET}</pre>
        </div>
      )}
      <button type="button" onClick={onDone}>
        I saved it: back to monitors
      </button>
    </section>
  );
}
