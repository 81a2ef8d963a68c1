/**
 * npm run bench:refresh's claim alone (tsx bench/refreshClaims.ts): claims of 100 person records per
 * second by 1 and then 2 claimers looping claimDue side by side (no source, no write: the claim is
 * the statement that slowed with a second worker), on a copy of the bench lake
 * (`<bench database>_claims`, dropped after). `--baseline=<checkout>`: the claimDue of another
 * checkout, alternating with this one in the same run, on the same copy (the leases are cleared
 * between runs). Prints claims/s, ms per claim (median), the ratio two/one per variant, and the
 * load average of each run. Options: --seconds=10 --rounds=3 --limit=100 --baseline=<dir>
 */
import os from 'node:os';
import path from 'node:path';
import { createKnex } from '../src/db/knex';
import { claimDue } from '../src/db/repositories/refreshQueue';
import { benchDatabaseUrl, cloneDatabase, intArg, median, stringArg } from './lib';

async function main() {
  const seconds = intArg('seconds', 10);
  const rounds = intArg('rounds', 3);
  const limit = intArg('limit', 100);
  const baseline = stringArg('baseline');
  const variants: { name: string; claimDue: typeof claimDue }[] = [];
  if (baseline) variants.push({ name: 'baseline', claimDue: (await import(path.resolve(baseline, 'src/db/repositories/refreshQueue'))).claimDue });
  variants.push({ name: 'this', claimDue });

  const setup = await benchDatabaseUrl();
  const copy = await cloneDatabase(setup.url, `${new URL(setup.url).pathname.slice(1)}_claims`);
  const db = createKnex(copy.url, 4);
  const results = new Map<string, { perSecond: number; ms: number[]; load: number }[]>();
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const claimers of [1, 2]) {
        for (const v of variants) {
          await db('person_refresh').whereNotNull('lease_token').update({ lease_token: null, lease_until: null });
          const now = (await db.raw<{ rows: { now: Date }[] }>('select now()')).rows[0]!.now;
          const ms: number[] = [];
          let claimed = 0;
          const end = Date.now() + seconds * 1000;
          await Promise.all(
            Array.from({ length: claimers }, async (_, i) => {
              const token = `00000000-0000-4000-8000-${String(round * 100 + claimers * 10 + i).padStart(12, '0')}`;
              while (Date.now() < end) {
                const t0 = process.hrtime.bigint();
                const rows = await v.claimDue(db, 'person', { token, limit, leaseSeconds: 600, dueBefore: now, watchedDueBefore: now });
                ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
                claimed += rows.length;
              }
            }),
          );
          const load = os.loadavg()[0]!;
          const run = { perSecond: ms.length / seconds, ms, load };
          results.set(`${v.name}:${claimers}`, [...(results.get(`${v.name}:${claimers}`) ?? []), run]);
          console.log(
            `round ${round}/${rounds} ${v.name.padEnd(8)} ${claimers} claimer(s): ${run.perSecond.toFixed(1)} claims/s, ${median(ms).toFixed(1)} ms per claim (median), ${claimed} rows; load ${load.toFixed(1)}`,
          );
        }
      }
    }
    for (const v of variants) {
      const one = results.get(`${v.name}:1`)!;
      const two = results.get(`${v.name}:2`)!;
      const ratios = one.map((o, i) => two[i]!.perSecond / o.perSecond);
      console.log(
        `${v.name.padEnd(8)} claims/s one ${median(one.map((r) => r.perSecond)).toFixed(1)}, two ${median(two.map((r) => r.perSecond)).toFixed(1)}; two/one per round ${ratios.map((r) => r.toFixed(2)).join(', ')} (median ${median(ratios).toFixed(2)}); ms per claim one ${median(one.flatMap((r) => r.ms)).toFixed(1)}, two ${median(two.flatMap((r) => r.ms)).toFixed(1)}`,
      );
    }
  } finally {
    await db.destroy();
    await copy.drop();
    await setup.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
