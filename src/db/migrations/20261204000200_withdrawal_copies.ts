import type { Knex } from 'knex';

/**
 * Withdrawal reaches the copies of a subject kept outside the lake (issue 20, rows 2 and 12; the
 * README's "What withdrawal erases" lists them all).
 *
 * idempotency_keys: the stored answer of a realtime call is a full copy of the record. `subject_id`
 * (the lake id of the answered record) lets a withdrawal find and erase those answers; the row stays
 * as `withdrawn` with no response, so the key keeps its parameters and a replay answers 451.
 *
 * monitors: a monitor on a withdrawn subject is deactivated and loses its slug and label, so
 * `subject_slug` may now be null (a null slug matches no change and no watcher count).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table idempotency_keys add column subject_id uuid');
  await knex.raw('alter table idempotency_keys drop constraint idempotency_keys_state_check');
  await knex.raw("alter table idempotency_keys add constraint idempotency_keys_state_check check (state in ('pending', 'done', 'withdrawn'))");
  // The answers a withdrawal erases (rare; the table holds 24 hours of keys).
  await knex.raw('create index idempotency_keys_subject on idempotency_keys (subject_id) where subject_id is not null');
  await knex.raw('alter table monitors alter column subject_slug drop not null');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('delete from monitors where subject_slug is null');
  await knex.raw('alter table monitors alter column subject_slug set not null');
  await knex.raw('drop index if exists idempotency_keys_subject');
  await knex.raw("delete from idempotency_keys where state = 'withdrawn'");
  await knex.raw('alter table idempotency_keys drop constraint idempotency_keys_state_check');
  await knex.raw("alter table idempotency_keys add constraint idempotency_keys_state_check check (state in ('pending', 'done'))");
  await knex.raw('alter table idempotency_keys drop column subject_id');
}
