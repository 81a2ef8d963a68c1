/**
 * The in-process adapter: the server calls the simulator directly (no HTTP), with the simulator's
 * latency and failure injection and the same resilience policy as the http adapter around it.
 * Used by `npm start` (LIVE_SOURCE=simulator).
 */
import type { CompanyRecord, PersonRecord } from '../../model/records';
import type { RawLiveSource } from '../../domain/live/resilience';
import type { CompanyRef } from '../../domain/live/source';
import type { Simulator, SimulatorAnswer } from './simulator';

class SimulatedFailure extends Error {}

/** Resolves the answer, or rejects: errors, and "hang" once the caller's deadline aborts it. */
function settle<T>(answer: SimulatorAnswer<T>, signal: AbortSignal): Promise<T | null> {
  switch (answer.kind) {
    case 'ok':
      return Promise.resolve(answer.body);
    case 'not_found':
      return Promise.resolve(null);
    case 'error':
      return Promise.reject(new SimulatedFailure(`live source answered ${answer.status}`));
    case 'hang':
      return new Promise((_resolve, reject) => {
        if (signal.aborted) reject(new SimulatedFailure('aborted'));
        signal.addEventListener('abort', () => reject(new SimulatedFailure('aborted')), { once: true });
      });
  }
}

export class SimulatorSource implements RawLiveSource {
  readonly name = 'simulator';

  constructor(private readonly sim: Simulator) {}

  async person(username: string, signal: AbortSignal): Promise<PersonRecord | null> {
    return settle(await this.sim.answer('person', 1, () => this.sim.person(username) as PersonRecord | null), signal);
  }

  async company(ref: CompanyRef, signal: AbortSignal): Promise<CompanyRecord | null> {
    return settle(await this.sim.answer('company', 1, () => this.sim.company(ref) as CompanyRecord | null), signal);
  }

  async persons(usernames: readonly string[], signal: AbortSignal): Promise<(PersonRecord | null)[]> {
    const answer = await this.sim.answer('persons', usernames.length, () => usernames.map((u) => this.sim.person(u) as PersonRecord | null));
    return (await settle(answer, signal)) ?? [];
  }

  async companies(usernames: readonly string[], signal: AbortSignal): Promise<(CompanyRecord | null)[]> {
    const answer = await this.sim.answer('companies', usernames.length, () =>
      usernames.map((u) => this.sim.company({ username: u }) as CompanyRecord | null),
    );
    return (await settle(answer, signal)) ?? [];
  }

  async close(): Promise<void> {}
}
