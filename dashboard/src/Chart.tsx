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

const DAY = 86_400;
/** Tick steps: whole numbers for counts, cents and tenths of cents for money. */
const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 1e6, 1e7];
const MONEY_STEPS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 1000];

export function DayChart({ id, title, days, series, bars = false, money = false, format = (n: number) => String(n) }: {
  id: string;
  title: string;
  days: string[];
  series: Series[];
  bars?: boolean;
  /** Values are USD amounts (else counts: whole-number ticks). */
  money?: boolean;
  format?: (n: number) => string;
}) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = holder.current;
    if (!el) return;
    const xs = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const widthOf = () => Math.max(320, el.clientWidth || 640);
    const width = widthOf();
    const plot = new uPlot(
      {
        width,
        height: 220,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'),
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        scales: {
          // Half a day of room on each side, so the first and last bars are whole.
          x: { time: true, range: (_u, min, max) => [min - DAY / 2, max + DAY / 2] },
          y: { range: (_u, _min, max) => [0, Math.max(money ? 0.005 : 5, max * 1.15)] },
        },
        axes: [
          { stroke: '#334155' },
          { stroke: '#334155', incrs: money ? MONEY_STEPS : COUNT_STEPS, values: (_u, ticks) => ticks.map(format), size: 60 },
        ],
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
    // uPlot draws at a fixed pixel size: follow the holder's width when the window (or the
    // layout around the chart) resizes, redrawing at the new size.
    const resized = new ResizeObserver(() => {
      const next = widthOf();
      if (next !== plot.width) plot.setSize({ width: next, height: 220 });
    });
    resized.observe(el);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [days, series, bars, money, format]);
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
