/**
 * A small time chart on uPlot (about 50 kB, no dependencies, canvas): days on the x axis, one or
 * more series. The figures are also in a table below it, for screen readers and for reading exact
 * values.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Series {
  label: string;
  values: number[];
  color: string;
}

export function DayChart({ id, title, days, series, bars = false, format = (n: number) => String(n) }: {
  id: string;
  title: string;
  days: string[];
  series: Series[];
  bars?: boolean;
  format?: (n: number) => string;
}) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = holder.current;
    if (!el) return;
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const width = Math.max(320, el.clientWidth || 640);
    const plot = new uPlot(
      {
        width,
        height: 220,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'),
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
        axes: [{ stroke: '#334155' }, { stroke: '#334155', values: (_u, ticks) => ticks.map(format) }],
        series: [
          { label: 'day', value: (_u, v) => (v == null ? '—' : new Date(v * 1000).toISOString().slice(0, 10)) },
          ...series.map((s) => ({
            label: s.label,
            stroke: s.color,
            fill: bars ? `${s.color}cc` : undefined,
            width: 2,
            value: (_u: uPlot, v: number | null) => (v == null ? '—' : format(v)),
            paths: bars ? uPlot.paths.bars!({ size: [0.6, 40] }) : undefined,
            points: { show: !bars },
          })),
        ],
      },
      [xs, ...series.map((s) => s.values)],
      el,
    );
    return () => plot.destroy();
  }, [days, series, bars, format]);
  const totals = series.map((s) => s.values.reduce((a, b) => a + b, 0));
  return (
    <figure className="chart" data-testid={`chart-${id}`} data-totals={totals.join(',')}>
      <figcaption>
        <h3>{title}</h3>
        <span className="muted">
          {series.map((s, i) => `${s.label}: ${format(totals[i])}`).join(' · ')} over {days.length} days
        </span>
      </figcaption>
      <div ref={holder} className="plot" aria-hidden="true" />
      <details>
        <summary>Figures by day</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {series.map((s) => (
                <th scope="col" key={s.label}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((d, i) => (
              <tr key={d}>
                <th scope="row">{d}</th>
                {series.map((s) => (
                  <td key={s.label}>{format(s.values[i])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
