import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';
import { Metrics, UNSAFE_DEFAULT_METRICS } from '../../src/observability/metrics';

describe('Metrics', () => {
  afterEach(() => jest.restoreAllMocks());

  it('close() stops the GC observer and the event-loop-delay histogram of the process metrics', () => {
    const disconnect = jest.spyOn(PerformanceObserver.prototype, 'disconnect');
    const histogramPrototype = Object.getPrototypeOf(monitorEventLoopDelay()) as { disable(): boolean };
    const disable = jest.spyOn(histogramPrototype, 'disable');
    const metrics = new Metrics();
    expect(disconnect).not.toHaveBeenCalled();
    expect(disable).not.toHaveBeenCalled();
    metrics.close();
    expect(disconnect).toHaveBeenCalledTimes(1);
    expect(disable).toHaveBeenCalledTimes(1);
  });

  it('still reports the process metrics, and puts the wrapped perf_hooks entry points back', async () => {
    const observe = PerformanceObserver.prototype.observe;
    const metrics = new Metrics();
    expect(PerformanceObserver.prototype.observe).toBe(observe);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(text).toMatch(/^# TYPE nodejs_gc_duration_seconds histogram/m);
    expect(text).toMatch(/^nodejs_active_resources_total /m);
    for (const name of UNSAFE_DEFAULT_METRICS) expect(text).not.toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    metrics.close();
  });

  it('exposes request durations as a histogram by operation and status, each observation in its bucket', async () => {
    const metrics = new Metrics();
    const ctx = (operationId: string, status: number) => ({ state: { operation: { operationId } }, status }) as never;
    const ago = (ms: number) => process.hrtime.bigint() - BigInt(ms) * 1_000_000n;
    metrics.observeRequest(ctx('getPerson', 200), ago(30));
    metrics.observeRequest(ctx('getPerson', 200), ago(3000));
    metrics.observeRequest(ctx('getHealth', 429), ago(0));
    const text = await metrics.registry.metrics();
    const line = (suffix: string) => new RegExp(`^enrich_http_request_duration_seconds_${suffix} (\\S+)$`, 'm').exec(text)?.[1];
    expect(text).toMatch(/^# TYPE enrich_http_request_duration_seconds histogram$/m);
    expect(line('bucket\\{le="0.025",operation="getPerson",status="200"\\}')).toBe('0');
    expect(line('bucket\\{le="2.5",operation="getPerson",status="200"\\}')).toBe('1');
    expect(line('bucket\\{le="\\+Inf",operation="getPerson",status="200"\\}')).toBe('2');
    expect(line('count\\{operation="getPerson",status="200"\\}')).toBe('2');
    expect(Number(line('sum\\{operation="getPerson",status="200"\\}'))).toBeGreaterThan(3.03);
    expect(line('bucket\\{le="\\+Inf",operation="getHealth",status="429"\\}')).toBe('1');
    expect(text).toMatch(/^enrich_rate_limited_total 1$/m);
    metrics.close();
  });
});
