/**
 * The operator command line, package bin `enrich` (`npx enrich ...`). Every command that changes
 * something accepts --json and then prints exactly one JSON object on stdout, for scripts.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { migrateLatest } from '../db/knex';
import { AppError } from '../domain/errors';
import {
  createKey,
  createWorkspace,
  listKeys,
  revokeKey,
  rollKey,
  setLicense,
  setRateLimit,
} from '../domain/workspaces/admin';
import { runUntilSignal, startServer } from '../main';
import { duration, isoDate, positiveInt, print, withDatabase } from './common';
import { registerLakeCommands } from './lakeCommands';

export function buildCli(): Command {
  const program = new Command('enrich')
    .description('Operate the enrichment service: database, server, workspaces, keys, licenses, the data lake')
    .showHelpAfterError();

  program
    .command('migrate')
    .description('Apply pending database migrations')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      const applied = await withDatabase((knex) => migrateLatest(knex), { migrate: false });
      print(Boolean(opts.json), { applied }, applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date');
    });

  program
    .command('serve')
    .description('Start the HTTP server (PORT, default 3000; DATABASE_URL, default the embedded PostgreSQL)')
    .option('--demo', 'on first start, create a demo workspace and print its key')
    .action(async (opts: { demo?: boolean }) => {
      runUntilSignal(await startServer({ demo: Boolean(opts.demo) }));
    });

  const workspace = program.command('workspace').description('Manage workspaces');
  workspace
    .command('create')
    .description("Create a workspace with an active license and print its owner's API key")
    .requiredOption('--name <name>', 'workspace name')
    .option('--rate-limit <n>', 'requests per minute for the workspace', positiveInt, 500)
    .option('--inactive', 'create it without an active license')
    .option('--json', 'machine-readable output')
    .action(async (opts: { name: string; rateLimit: number; inactive?: boolean; json?: boolean }) => {
      const created = await withDatabase((knex) =>
        createWorkspace(knex, { name: opts.name, rateLimit: opts.rateLimit, active: !opts.inactive }),
      );
      print(
        Boolean(opts.json),
        { workspace_id: created.workspace_id, api_key: created.api_key },
        `Workspace ${created.workspace_id}\nOwner API key (shown once): ${created.api_key}`,
      );
    });
  workspace
    .command('set-rate-limit')
    .description("Change a workspace's requests per minute (takes effect at once)")
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--rate-limit <n>', 'requests per minute', positiveInt)
    .option('--json', 'machine-readable output')
    .action(async (opts: { workspace: string; rateLimit: number; json?: boolean }) => {
      const row = await withDatabase((knex) => setRateLimit(knex, opts.workspace, opts.rateLimit));
      print(
        Boolean(opts.json),
        { workspace_id: row.id, rate_limit: row.rate_limit_per_minute },
        `Workspace ${row.id}: ${row.rate_limit_per_minute} requests/minute`,
      );
    });

  const key = program.command('key').description('Manage API keys');
  key
    .command('create')
    .description("Create an API key for the workspace owner, or for a member (created on first use)")
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--member <name>', 'member account name')
    .option('--allowance <n>', 'requests per minute carved out of the workspace total', positiveInt)
    .option('--expires-at <date>', 'the key stops working at this time (ISO 8601); default: never', isoDate)
    .option('--json', 'machine-readable output')
    .action(async (opts: { workspace: string; member?: string; allowance?: number; expiresAt?: Date; json?: boolean }) => {
      const created = await withDatabase((knex) =>
        createKey(knex, { workspaceId: opts.workspace, member: opts.member, allowance: opts.allowance, expiresAt: opts.expiresAt }),
      );
      print(
        Boolean(opts.json),
        created,
        `Account ${created.account_id}\nAPI key (shown once): ${created.api_key}` +
          (created.expires_at ? `\nExpires at ${created.expires_at}` : ''),
      );
    });
  key
    .command('roll')
    .description(
      'Rotate a key without downtime: issue a new key for the same account and make the old one expire after the overlap',
    )
    .argument('<key>', 'the full key, its display prefix (ik_live_XXXXXX) or its key id')
    .option('--overlap <duration>', 'how long the old key keeps working: 30m, 24h, 7d, or 0 (default 24h)', duration, 86_400_000)
    .option('--expires-at <date>', 'expiry of the new key (ISO 8601); default: never', isoDate)
    .option('--workspace <id>', 'only match keys of this workspace')
    .option('--json', 'machine-readable output')
    .action(async (reference: string, opts: { overlap: number; expiresAt?: Date; workspace?: string; json?: boolean }) => {
      const rolled = await withDatabase((knex) =>
        rollKey(knex, { reference, overlapMs: opts.overlap, expiresAt: opts.expiresAt, workspaceId: opts.workspace }),
      );
      print(
        Boolean(opts.json),
        rolled,
        `New API key (shown once): ${rolled.api_key}\n` +
          `Old key ${rolled.replaced.prefix}… (${rolled.replaced.key_id}) stops working at ${rolled.replaced.expires_at}`,
      );
    });
  key
    .command('revoke')
    .description(
      'Revoke a key: the full key, its exact display prefix (ik_live_XXXXXX) when only one active key has it, its key id, or an account id (all its keys)',
    )
    .argument('<key-or-id>')
    .option('--workspace <id>', 'only match keys of this workspace')
    .option('--json', 'machine-readable output')
    .action(async (reference: string, opts: { workspace?: string; json?: boolean }) => {
      const result = await withDatabase((knex) => revokeKey(knex, reference, { workspaceId: opts.workspace }));
      print(Boolean(opts.json), result, result.keys.map((k) => `Revoked ${k.prefix}… (${k.key_id})`).join('\n'));
    });
  key
    .command('list')
    .description("List a workspace's keys (display prefix, key id, account, status); keys themselves are never shown")
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'machine-readable output')
    .action(async (opts: { workspace: string; json?: boolean }) => {
      const keys = await withDatabase((knex) => listKeys(knex, opts.workspace));
      const now = Date.now();
      const rows = keys.map((k) => ({
        ...k,
        created_at: k.created_at.toISOString(),
        revoked_at: k.revoked_at ? k.revoked_at.toISOString() : null,
        expires_at: k.expires_at ? k.expires_at.toISOString() : null,
        status: k.revoked_at ? 'revoked' : k.expires_at && k.expires_at.getTime() <= now ? 'expired' : 'active',
      }));
      const human = rows
        .map(
          (k) =>
            `${k.prefix}…  ${k.key_id}  ${k.account_name} (${k.role})  ${k.status}` +
            (k.expires_at && k.status === 'active' ? ` until ${k.expires_at}` : ''),
        )
        .join('\n');
      print(Boolean(opts.json), { keys: rows }, human || 'No keys');
    });

  const license = program.command('license').description('Manage workspace licenses');
  license
    .command('set')
    .description(
      "Activate or deactivate a workspace's license. Activating removes an end date that has already passed; --no-expiry removes any end date",
    )
    .requiredOption('--workspace <id>', 'workspace id')
    .addOption(new Option('--status <status>', 'license status').choices(['active', 'inactive']).makeOptionMandatory())
    .addOption(new Option('--expires-at <date>', 'license end (ISO 8601); after it requests get 402').argParser(isoDate).conflicts('expiry'))
    .option('--no-expiry', 'remove the license end date')
    .option('--json', 'machine-readable output')
    .action(async (opts: { workspace: string; status: 'active' | 'inactive'; expiresAt?: Date; expiry: boolean; json?: boolean }) => {
      if (opts.status === 'active' && opts.expiresAt && opts.expiresAt.getTime() <= Date.now()) {
        throw new InvalidArgumentError('--expires-at is in the past: the license would be expired at once (use --status inactive)');
      }
      const expiresAt = opts.expiry === false ? null : opts.expiresAt;
      const row = await withDatabase((knex) => setLicense(knex, { workspaceId: opts.workspace, status: opts.status, expiresAt }));
      print(
        Boolean(opts.json),
        {
          workspace_id: row.id,
          status: row.license_status,
          expires_at: row.license_expires_at ? row.license_expires_at.toISOString() : null,
        },
        `Workspace ${row.id}: license ${row.license_status}` +
          (row.license_expires_at ? ` until ${row.license_expires_at.toISOString()}` : ', no end date'),
      );
    });

  registerLakeCommands(program);
  return program;
}

export async function runCli(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (err) {
    const message = err instanceof AppError || err instanceof Error ? err.message : String(err);
    process.stderr.write(`enrich: ${message}\n`);
    process.exitCode = 1;
  }
}

if (require.main === module) {
  void runCli(process.argv);
}
