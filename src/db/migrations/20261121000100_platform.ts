import type { Knex } from 'knex';

/** Workspaces, their member accounts, API keys and licenses. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create extension if not exists pgcrypto');
  await knex.schema.createTable('workspaces', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('name').notNullable();
    t.integer('rate_limit_per_minute').notNullable().defaultTo(500);
    t.text('license_status').notNullable().defaultTo('active');
    t.timestamp('license_expires_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    "alter table workspaces add constraint workspaces_license_status_check check (license_status in ('active', 'inactive'))",
  );
  await knex.raw('alter table workspaces add constraint workspaces_rate_limit_check check (rate_limit_per_minute > 0)');

  await knex.schema.createTable('accounts', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('role').notNullable();
    // Requests per minute carved out of the workspace total; null = no allowance of its own.
    t.integer('rate_limit_allowance').nullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // `enrich key create --member NAME` finds a member by name within its workspace.
    t.unique(['workspace_id', 'name']);
  });
  await knex.raw("alter table accounts add constraint accounts_role_check check (role in ('owner', 'member'))");
  await knex.raw(
    'alter table accounts add constraint accounts_allowance_check check (rate_limit_allowance is null or rate_limit_allowance > 0)',
  );

  await knex.schema.createTable('api_keys', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    // Display prefix only (ik_live_ + 6 characters); the key itself is never stored.
    t.text('prefix').notNullable();
    // SHA-256 of the whole key; unique index = the one lookup a cache miss costs.
    t.binary('key_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('revoked_at', { useTz: true }).nullable();
    // `enrich key revoke PREFIX` looks keys up by display prefix.
    t.index(['prefix']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('api_keys');
  await knex.schema.dropTableIfExists('accounts');
  await knex.schema.dropTableIfExists('workspaces');
}
