import type { Knex } from 'knex';

/** Metered realtime calls (0.001 USD each), summed per calendar month by GET /account. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('realtime_usage', (t) => {
    t.bigIncrements('id');
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('account_id').notNullable().references('accounts.id').onDelete('CASCADE');
    t.text('operation_id').notNullable();
    t.decimal('cost_usd', 12, 6).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // GET /account: count and sum for one workspace since the start of the month.
    t.index(['workspace_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('realtime_usage');
}
