import { Feistel } from '../../../src/world/random';
import { createWorld } from '../../../src/world';
import { Simulator } from '../../../src/world/simulator/simulator';

const asOf = new Date('2026-11-01T00:00:00Z');
const DAY = 86_400;

describe('Feistel.invert', () => {
  it('undoes apply for every width', () => {
    for (const bits of [2, 8, 24, 28, 32]) {
      const f = new Feistel(bits, 0xdeadbeef);
      for (const x of [0, 1, 2, 3, 2 ** bits - 1, Math.floor(2 ** bits / 3)]) expect(f.invert(f.apply(x))).toBe(x);
    }
  });
});

describe('the world by identifier', () => {
  const world = createWorld({ persons: 500, companies: 40, seed: 9, asOf });
  it('finds every person by username and every company by username and company_id, nothing else', () => {
    for (let i = 0; i < 500; i += 7) expect(world.personIndexOf(world.person(i).username)).toBe(i);
    for (let i = 0; i < 40; i++) {
      const c = world.company(i);
      expect(world.companyIndexOf({ username: c.username })).toBe(i);
      expect(world.companyIndexOf({ companyId: c.company_id })).toBe(i);
    }
    expect(world.personIndexOf('nobody-000000')).toBeUndefined();
    expect(world.personIndexOf('no-suffix')).toBeUndefined();
    expect(world.companyIndexOf({ companyId: '1' })).toBeUndefined();
  });
});

describe('Simulator', () => {
  const options = { world: { persons: 300, companies: 20, seed: 11, asOf }, speed: 0, rates: { job: 0.01, title: 0.01, location: 0.01, headcount: 0.05, name: 0.005, hq: 0.005, industry: 0.005 } };

  it('at the start of its clock answers the world as generated (apart from fetched_at)', () => {
    const sim = new Simulator(options);
    const base = sim.world.person(42);
    expect({ ...sim.person(base.username)!, fetched_at: '' }).toEqual({ ...base, fetched_at: '' });
    const company = sim.world.company(3);
    expect({ ...sim.company({ companyId: company.company_id })!, fetched_at: '' }).toEqual({ ...company, fetched_at: '' });
  });

  it('evolves deterministically: two simulators at the same simulated time agree, on any machine', () => {
    const a = new Simulator(options);
    const b = new Simulator(options);
    a.advance(200 * DAY);
    b.advance(100 * DAY);
    b.advance(100 * DAY);
    for (let i = 0; i < 300; i += 13) {
      const u = a.world.person(i).username;
      expect(a.person(u)).toEqual(b.person(u));
    }
    expect(a.company({ username: a.world.company(5).username })).toEqual(b.company({ username: b.world.company(5).username }));
  });

  it('changes people and companies at about the configured rates, and a later time extends an earlier one', () => {
    const sim = new Simulator(options);
    sim.advance(100 * DAY);
    const mid = Array.from({ length: 300 }, (_, i) => sim.person(sim.world.person(i).username)!);
    sim.advance(100 * DAY);
    const late = Array.from({ length: 300 }, (_, i) => sim.person(sim.world.person(i).username)!);
    const moved = late.filter((p, i) => p.current_company_id !== sim.world.person(i).current_company_id).length;
    // 200 days at 0.01/day: 1 - e^-2 = 86% expected.
    expect(moved).toBeGreaterThan(200);
    expect(moved).toBeLessThan(290);
    // Work history only grows: every position of the earlier copy is still there (ended or not).
    for (let i = 0; i < 300; i++) expect(late[i]!.positions.length).toBeGreaterThanOrEqual(mid[i]!.positions.length);
    const companies = Array.from({ length: 20 }, (_, i) => sim.company({ username: sim.world.company(i).username })!);
    expect(companies.filter((c, i) => c.staff_count !== sim.world.company(i).staff_count).length).toBeGreaterThan(15);
  });

  it('never goes backwards and freezes at speed 0', () => {
    const sim = new Simulator(options);
    const t = sim.now();
    expect(sim.now()).toBe(t);
    sim.advance(-5);
    expect(sim.now()).toBe(t);
    sim.advance(60);
    expect(sim.now()).toBe(t + 60_000);
  });

  it('injects faults: outage, errors and hangs', async () => {
    const sim = new Simulator(options);
    const u = sim.world.person(1).username;
    expect((await sim.answer('person', 1, () => sim.person(u))).kind).toBe('ok');
    sim.setFaults({ outage: true });
    expect(await sim.answer('person', 1, () => sim.person(u))).toMatchObject({ kind: 'error', status: 503 });
    sim.setFaults({ outage: false, errorRate: 1 });
    expect(await sim.answer('person', 1, () => sim.person(u))).toMatchObject({ kind: 'error', status: 500 });
    sim.setFaults({ errorRate: 0, timeoutRate: 1 });
    expect((await sim.answer('person', 1, () => sim.person(u))).kind).toBe('hang');
    expect(sim.stats.calls.person).toBe(4);
  });
});
