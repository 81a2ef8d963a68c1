import type { Knex } from 'knex';

/**
 * API keys can expire (`enrich key create --expires-at`, `enrich key roll --overlap`), and keys
 * carry a checksum from now on. `checksummed` tells the two key formats apart in the table, so a
 * server knows whether any key of the old format can still be valid (if none can, a key of that
 * shape is refused without a lookup). Rows that exist now are all of the old format.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    // null = never expires. Checked on every request (the key cache keeps it with the key).
    t.timestamp('expires_at', { useTz: true }).nullable();
    t.boolean('checksummed').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('checksummed');
    t.dropColumn('expires_at');
  });
}
