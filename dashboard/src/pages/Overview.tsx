import { useMemo } from 'react';
import { api, call } from '../api';
import { DayChart } from '../Chart';
import { ErrorBox, fmtDate, Loading, useLoad } from '../components';

const usd = (n: number) => `$${n.toFixed(3)}`;
const count = (n: number) => String(Math.round(n));

export function Overview() {
  const { data, problem, loading } = useLoad(
    () => Promise.all([call(api.GET('/account')), call(api.GET('/workspace/usage', { params: { query: { days: 30 } } }))]),
    [],
  );
  const charts = useMemo(() => {
    if (!data) return undefined;
    const days = data[1].days;
    return {
      dates: days.map((d) => d.date),
      requests: [
        { label: '2xx', values: days.map((d) => d.status_2xx), color: '#15803d' },
        { label: '3xx', values: days.map((d) => d.status_3xx), color: '#2563eb' },
        { label: '4xx', values: days.map((d) => d.status_4xx), color: '#b45309' },
        { label: '5xx', values: days.map((d) => d.status_5xx), color: '#b91c1c' },
      ],
      limited: [{ label: '429', values: days.map((d) => d.rate_limited), color: '#7c3aed' }],
      realtime: [{ label: 'realtime calls', values: days.map((d) => d.realtime_calls), color: '#0e7490' }],
      cost: [{ label: 'cost (USD)', values: days.map((d) => d.realtime_cost_usd), color: '#be185d' }],
    };
  }, [data]);
  if (loading && !data) return <Loading />;
  if (problem) return <ErrorBox problem={problem} />;
  if (!data || !charts) return null;
  const [{ data: account }, usage] = data;
  const licenseClass = account.license.status === 'active' ? 'ok' : 'bad';
  return (
    <section aria-labelledby="overview-title">
      <h2 id="overview-title">Overview</h2>
      <div className="cards">
        <div className="card">
          <h3>License</h3>
          <p className={`badge ${licenseClass}`} data-testid="license-status">
            {account.license.status}
          </p>
          <p className="muted">Expires: {account.license.expires_at ? fmtDate(account.license.expires_at) : 'never'}</p>
        </div>
        <div className="card">
          <h3>Rate limits</h3>
          <p data-testid="rate-limit">
            Workspace: {account.rate_limits.workspace.limit} requests / {account.rate_limits.workspace.window_seconds} s
          </p>
          <p className="muted">
            {account.rate_limits.member
              ? `Your allowance: ${account.rate_limits.member.limit} requests / ${account.rate_limits.member.window_seconds} s`
              : 'Your account shares the workspace window.'}
          </p>
        </div>
        <div className="card">
          <h3>Realtime this period</h3>
          <p data-testid="realtime-period">
            {usage.period.realtime_calls} calls · {usd(usage.period.realtime_cost_usd)}
          </p>
          <p className="muted">
            {fmtDate(usage.period.period_start).slice(0, 10)} to {fmtDate(usage.period.period_end).slice(0, 10)}, {usd(usage.period.unit_price_usd)} per call
          </p>
        </div>
      </div>
      <p className="muted">Request counts are written every few seconds: the last seconds may not show yet.</p>
      <DayChart id="requests" title="Requests per day by status" days={charts.dates} series={charts.requests} format={count} />
      <DayChart id="rate-limited" title="Rate-limited requests (429) per day" days={charts.dates} series={charts.limited} bars format={count} />
      <DayChart id="realtime" title="Realtime calls per day" days={charts.dates} series={charts.realtime} bars format={count} />
      <DayChart id="cost" title="Realtime cost per day" days={charts.dates} series={charts.cost} bars money format={usd} />
    </section>
  );
}
