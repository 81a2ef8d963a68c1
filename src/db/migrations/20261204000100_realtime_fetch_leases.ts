import type { Knex } from 'knex';

/**
 * One live fetch per subject across instances (issue 20, row 3), without holding a database
 * connection while the source is asked. Before, a realtime fetch ran inside a transaction holding
 * an advisory lock, so every call waiting on a slow source held a pooled connection. Now the
 * instance that fetches a subject writes a short lease row here (one statement), asks the source
 * with nothing open, and deletes the row in the transaction of its write-back; another instance
 * finding the row polls for the fresh copy instead of waiting on a lock. A crashed instance leaves
 * a row that simply expires. Distributed by `subject` (its primary key).
 *   subject     SHA-256 (hex) of `realtime:<kind>:<username:...|company_id:...>`, the in-process
 *               coalescer's key: a one-way hash, so a row left by a crash names no one
 *   token       the holder's, so a holder never deletes a lease another one took over after expiry
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table realtime_fetch_leases (
      subject text primary key,
      token uuid not null,
      expires_at timestamptz not null
    )
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists realtime_fetch_leases');
}
