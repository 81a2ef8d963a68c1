import type { Knex } from 'knex';

/**
 * The workspace dashboard: single-use sign-in links and server-side sessions (only hashes of their
 * random tokens are stored), the per-day request counts of the usage timeline (written in batches
 * by src/http/requestCounter.ts, never once per request), and the last use of each API key
 * (written by the same batches).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dashboard_links', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.binary('token_hash').notNullable().unique();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('used_at', { useTz: true }).nullable();
  });
  await knex.schema.createTable('dashboard_sessions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.binary('token_hash').notNullable().unique();
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    // Set for a session signed in with an API key: revoking the key ends the session.
    t.uuid('key_id').nullable().references('api_keys.id').onDelete('CASCADE');
    t.text('method').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('ended_at', { useTz: true }).nullable();
  });
  await knex.raw(`alter table dashboard_sessions add constraint dashboard_sessions_method check (method in ('link', 'api_key'))`);
  await knex.schema.createTable('workspace_request_counts', (t) => {
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.date('day').notNullable();
    t.text('status_class').notNullable();
    t.bigInteger('count').notNullable();
    t.primary(['workspace_id', 'day', 'status_class']);
  });
  await knex.raw(
    `alter table workspace_request_counts add constraint workspace_request_counts_class check (status_class in ('2xx', '3xx', '4xx', '5xx', '429'))`,
  );
  await knex.schema.alterTable('api_keys', (t) => {
    t.timestamp('last_used_at', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => t.dropColumn('last_used_at'));
  await knex.schema.dropTable('workspace_request_counts');
  await knex.schema.dropTable('dashboard_sessions');
  await knex.schema.dropTable('dashboard_links');
}
