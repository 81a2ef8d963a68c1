/**
 * The lanes of an import: a batch of records split into groups that can be written at the same time
 * on separate connections, each group in file order, with the same result as writing the batch as one.
 *
 * Two records go to the same group when they could meet in the writer (writer.ts), that is when
 * they share an identifier the writer or a withdrawal looks at (suppression.ts: id, username, the
 * slug of network_url, the network IDs, company_id), directly or through a stored row that carries
 * identifiers of both (a record that takes over the username of another id replaces that row).
 * Groups are the connected components of that relation, so within a batch:
 * - the writer's own dedupe (last record wins) sees every record of a person together, as before;
 * - no two groups lock, replace, delete or withdraw the same row or tombstone, so they cannot wait
 *   for each other, let alone deadlock, and each record is diffed against the same stored copy as
 *   if the batch were written alone;
 * - a record refused as withdrawn blocks its identifiers only for records of its own group, as
 *   before: the tombstones of a batch are checked once, before any is added.
 * Batches follow each other as before: the next one is written once every group of this one is
 * committed, so a later line for the same person always wins.
 */
import os from 'node:os';
import type { CompanyRecord, LakeKind, PersonRecord } from '../../model/records';
import { storedCompanyId } from '../../model/identifiers';
import { companyIdentifiers, personIdentifiers } from './suppression';
import { storedUsername } from './write/writer';

/** Lanes by default: one per core, at least 1, at most 4 (each holds a connection and a server process). */
export function defaultImportLanes(): number {
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.max(1, Math.min(4, cores));
}

/** The identifier texts of a record (suppression.ts), which its group is made of. */
export function recordIdentifiers(kind: LakeKind, record: object): string[] {
  return kind === 'person' ? personIdentifiers(record as PersonRecord) : companyIdentifiers(record as CompanyRecord);
}

/** The stored-row lookup keys of a batch (as the writer's lock of the stored copies uses them). */
export function lookupKeys(kind: LakeKind, records: readonly object[]): { ids: string[]; usernames: string[]; companyIds?: string[] } {
  const all = records as (PersonRecord | CompanyRecord)[];
  return {
    ids: all.map((r) => r.id.toLowerCase()),
    usernames: all.map(storedUsername),
    companyIds:
      kind === 'company'
        ? (all as CompanyRecord[]).map((r) => storedCompanyId(r.company_id)).filter((v): v is string => v !== undefined)
        : undefined,
  };
}

/**
 * Splits `items` (in file order) into at most `lanes` groups of whole components, each in file
 * order, the largest components first onto the least loaded lane. `identifiers[i]` are item i's
 * identifier texts; each of `links` is a set of identifier texts one stored row ties together.
 */
export function splitIntoLanes<T>(items: readonly T[], identifiers: readonly string[][], links: readonly string[][], lanes: number): T[][] {
  const parent = items.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]];
      i = parent[i];
    }
    return i;
  };
  const union = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };
  const holder = new Map<string, number>();
  identifiers.forEach((keys, i) => {
    for (const key of keys) {
      const other = holder.get(key);
      if (other === undefined) holder.set(key, i);
      else union(other, i);
    }
  });
  for (const link of links) {
    let first: number | undefined;
    for (const key of link) {
      const i = holder.get(key);
      if (i === undefined) continue;
      if (first === undefined) first = i;
      else union(first, i);
    }
  }
  const components = new Map<number, number[]>();
  items.forEach((_, i) => {
    const root = find(i);
    const members = components.get(root);
    if (members) members.push(i);
    else components.set(root, [i]);
  });
  const count = Math.max(1, Math.min(lanes, components.size));
  const load = new Array<number>(count).fill(0);
  const assigned: number[][] = Array.from({ length: count }, () => []);
  for (const members of [...components.values()].sort((a, b) => b.length - a.length || a[0] - b[0])) {
    let lane = 0;
    for (let l = 1; l < count; l += 1) if (load[l] < load[lane]) lane = l;
    load[lane] += members.length;
    assigned[lane].push(...members);
  }
  return assigned.filter((a) => a.length).map((a) => a.sort((x, y) => x - y).map((i) => items[i]));
}
