/**
 * The operator command line, package bin `enrich` (`npx enrich ...`). Every command that changes
 * something accepts --json and then prints exactly one JSON object on stdout, for scripts.
 */
import { Command, Option } from 'commander';
import { migrateLatest } from '../db/knex';
import { AppError } from '../domain/errors';
import { createKey, createWorkspace, listKeys, revokeKey, setLicense, setRateLimit } from '../domain/workspaces/admin';
import { runUntilSignal, startServer } from '../main';
import { isoDate, positiveInt, print, withDatabase } from './common';
import { registerLakeCommands } from './lakeCommands';
import { registerLiveCommands } from './liveCommands';
import { registerMonitorCommands } from './monitorCommands';

export function buildCli(): Command {
  const program = new Command('enrich')
    .description('Operate the enrichment service: database, server, workspaces, keys, licenses, the data lake')
    .showHelpAfterError();

  program
    .command('migrate')
    .description('Apply pending database migrations')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      const applied = await withDatabase((knex) => migrateLatest(knex));
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
    .option('--json', 'machine-readable output')
    .action(async (opts: { workspace: string; member?: string; allowance?: number; json?: boolean }) => {
      const created = await withDatabase((knex) =>
        createKey(knex, { workspaceId: opts.workspace, member: opts.member, allowance: opts.allowance }),
      );
      print(
        Boolean(opts.json),
        created,
        `Account ${created.account_id}\nAPI key (shown once): ${created.api_key}`,
      );
    });
  key
    .command('revoke')
    .description('Revoke a key: the full key, a prefix of it (ik_live_XXXXXX), its key id, or an account id (all its keys)')
    .argument('<key-prefix-or-id>')
    .option('--json', 'machine-readable output')
    .action(async (reference: string, opts: { json?: boolean }) => {
      const result = await withDatabase((knex) => revokeKey(knex, reference));
      print(Boolean(opts.json), result, result.keys.map((k) => `Revoked ${k.prefix}… (${k.key_id})`).join('\n'));
    });
  key
    .command('list')
    .description("List a workspace's keys (display prefix, key id, account, status); keys themselves are never shown")
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'machine-readable output')
    .action(async (opts: { workspace: string; json?: boolean }) => {
      const keys = await withDatabase((knex) => listKeys(knex, opts.workspace));
      const rows = keys.map((k) => ({
        ...k,
        created_at: k.created_at.toISOString(),
        revoked_at: k.revoked_at ? k.revoked_at.toISOString() : null,
      }));
      const human = rows
        .map((k) => `${k.prefix}…  ${k.key_id}  ${k.account_name} (${k.role})  ${k.revoked_at ? 'revoked' : 'active'}`)
        .join('\n');
      print(Boolean(opts.json), { keys: rows }, human || 'No keys');
    });

  const license = program.command('license').description('Manage workspace licenses');
  license
    .command('set')
    .description("Activate or deactivate a workspace's license")
    .requiredOption('--workspace <id>', 'workspace id')
    .addOption(new Option('--status <status>', 'license status').choices(['active', 'inactive']).makeOptionMandatory())
    .option('--expires-at <date>', 'license end (ISO 8601); after it requests get 402', isoDate)
    .option('--json', 'machine-readable output')
    .action(async (opts: { workspace: string; status: 'active' | 'inactive'; expiresAt?: Date; json?: boolean }) => {
      const row = await withDatabase((knex) =>
        setLicense(knex, { workspaceId: opts.workspace, status: opts.status, expiresAt: opts.expiresAt }),
      );
      print(
        Boolean(opts.json),
        {
          workspace_id: row.id,
          status: row.license_status,
          expires_at: row.license_expires_at ? row.license_expires_at.toISOString() : null,
        },
        `Workspace ${row.id}: license ${row.license_status}`,
      );
    });

  registerLakeCommands(program);
  registerLiveCommands(program);
  registerMonitorCommands(program);
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
