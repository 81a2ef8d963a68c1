/**
 * `enrich listen`'s poll of GET /events: a poll retried after a failure (the server restarting)
 * builds its query again from the same page params, so each retry must ask exactly what the first
 * try asked. Once, each retry appended the event filters again, and after ten retries the query
 * carried more `event` values than the contract allows: a 400 that ended listen (seen in a loaded
 * run of listenResilience.test.ts).
 */
import { feedQuery } from '../../../src/cli/listen';

describe('feedQuery', () => {
  it('asks the same query on every retry of one page', () => {
    const page = new URLSearchParams({ after: 'evt_1' });
    const o = { monitor: 'mon_1', events: ['monitor.test', 'person.changed'] };
    const first = feedQuery(o, page);
    for (let retry = 0; retry < 12; retry++) expect(feedQuery(o, page)).toBe(first);
    const q = new URLSearchParams(first.slice('/events?'.length));
    expect(q.getAll('event')).toEqual(['monitor.test', 'person.changed']);
    expect(q.get('after')).toBe('evt_1');
    expect(q.get('monitor_id')).toBe('mon_1');
    expect(q.get('per_page')).toBe('100');
    expect([...page.keys()]).toEqual(['after']);
  });
});
