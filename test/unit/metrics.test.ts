import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';
import { Metrics } from '../../src/http/metrics';

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
    metrics.close();
  });
});
