import type { Knex } from 'knex';

/**
 * Monitors (issue 13): standing subscriptions of a workspace on one person or company.
 *   subject_slug       the profile / company page slug (identifiers.ts rules); the subject does not
 *                      have to be in the lake, so the monitor keeps the slug, not a lake id.
 *   secret_ciphertext  the webhook secret (whsec_...), encrypted with the server key
 *                      (domain/webhooks/secrets.ts); never returned by the API.
 *   secret_revealed_at set when the secret was revealed once (dashboard or `enrich monitor secret`).
 *   previous_secret_*  after `enrich monitor rotate-secret`: the replaced secret, which still signs
 *                      (a second v1 signature) until previous_secret_expires_at (24 h).
 * A deleted monitor is removed (it is no longer listed and its events stop).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table monitors (
      id uuid primary key default gen_random_uuid(),
      workspace_id uuid not null references workspaces (id) on delete cascade,
      type text not null check (type in ('person', 'company')),
      subject_slug text not null,
      label text,
      webhook_url text not null,
      events text[] not null,
      active boolean not null default true,
      secret_ciphertext text not null,
      secret_revealed_at timestamptz,
      previous_secret_ciphertext text,
      previous_secret_expires_at timestamptz,
      created_at timestamptz not null default now()
    );
    -- GET /monitors (newest first, ties by id) and the per-workspace count of the 1000 limit.
    create index monitors_workspace on monitors (workspace_id, created_at desc, id);
    -- The monitors of a subject: watcher counts of the refresh queue, events of a change.
    create index monitors_subject on monitors (type, subject_slug);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists monitors');
}
