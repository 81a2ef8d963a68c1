/**
 * The operator command line, package bin `enrich` (from a clone: `npm run enrich -- ...` or `node bin/enrich.js ...`). Every command that changes
 * something accepts --json and then prints exactly one JSON object on stdout, for scripts.
 *
 * Startup cost is part of the interface: this module and the ones it imports statically load only
 * commander. Each action imports the modules it needs (the database driver, the server, the world
 * generator) when it runs, so `enrich --help` or a mistyped option answers at once.
 *
 * runCli never calls process.exit and takes its output streams and environment as arguments, so
 * the tests run commands in-process; bin/enrich.js turns its result into the exit code.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { CliExit, duration, isoDate, positiveInt, print, withDatabase, type CliIo } from './common';
import { registerLakeCommands } from './lakeCommands';
import { registerMatchCommands } from './matchCommands';
import { load } from './lazy';
import { packageVersion } from '../observability/version';
import { registerLiveCommands } from './liveCommands';
import { registerMonitorCommands } from './monitorCommands';
import { registerDashboardCommands } from './dashboardCommands';
import { registerListenCommand } from './listen';
import { registerJobCommands } from './jobCommands';

/** Thrown (instead of exiting) once commander has printed its own help or error message. */
class CommanderExit extends Error {
  constructor(readonly exitCode: number) {
    super(`commander exit ${exitCode}`);
  }
}

export function buildCli(io: CliIo): Command {
  const program = new Command('enrich')
    .description('Operate the enrichment service: database, server, workspaces, keys, licenses, the data lake')
    // Set before any subcommand is added: subcommands copy these settings when they are created.
    .exitOverride((err) => {
      throw new CommanderExit(err.exitCode);
    })
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
    })
    .showHelpAfterError()
    .version(packageVersion(), '-V, --version', 'print the version of enrich');

  program
    .command('migrate')
    .description('Apply pending database migrations')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      const { migrateLatest } = load.database();
      // Not through withDatabase's own migration, or there would be nothing left to report.
      const applied = await withDatabase(io, (knex) => migrateLatest(knex), { migrate: false });
      print(io, Boolean(opts.json), { applied }, applied.length ? `Applied: ${applied.join(', ')}` : 'Already up to date');
    });

  program
    .command('distribute')
    .description(
      'Apply the distributed layout on Citus (docs/scale-out.md): lake tables distributed or replicated across the worker nodes; only where the citus extension is installed; run after migrate, again does nothing',
    )
    .option('--shard-count <n>', 'shards of each distributed table created by this run', positiveInt, 32)
    .option('--json', 'machine-readable output')
    .action(async (opts: { shardCount: number; json?: boolean }) => {
      const { applyDistributedLayout, CitusMissing } = load.citusLayout();
      const report = await withDatabase(io, (knex) => applyDistributedLayout(knex, { shardCount: opts.shardCount })).catch((err: unknown) => {
        if (!(err instanceof CitusMissing)) throw err;
        io.stderr.write(`enrich distribute: ${err.message}\n`);
        throw new CliExit(1);
      });
      print(
        io,
        Boolean(opts.json),
        report,
        report.steps.length ? `Applied (${report.shardCount} shards):\n  ${report.steps.join('\n  ')}` : 'The distributed layout is already in place',
      );
    });

  program
    .command('serve')
    .description('Start the HTTP server (PORT, default 3000; DATABASE_URL, default the embedded PostgreSQL)')
    .option('--demo', 'on first start, create a demo workspace and print its key')
    .option('--no-migrate', 'do not apply migrations: refuse to start unless `enrich migrate` already did (several instances, a primary with read replicas)')
    .action(async (opts: { demo?: boolean; migrate: boolean }) => {
      // Tracing first (only with OTEL_* set): the server's modules must load after the SDK.
      load.tracing().startTracing(io.env);
      const { runUntilSignal, startServer } = load.server();
      runUntilSignal(
        await startServer({ demo: Boolean(opts.demo), migrate: opts.migrate, config: load.config().loadConfig(io.env, { demo: Boolean(opts.demo) }) }),
      );
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
      const { createWorkspace } = load.admin();
      const created = await withDatabase(io, (knex) =>
        createWorkspace(knex, { name: opts.name, rateLimit: opts.rateLimit, active: !opts.inactive }),
      );
      print(
        io,
        Boolean(opts.json),
        { workspace_id: created.workspace_id, api_key: created.api_key },
        `Workspace ${created.workspace_id}\nOwner API key (shown once): ${created.api_key}`,
      );
    });
  workspace
    .command('list')
    .description('List every workspace: id, name, license, rate limit, active keys')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      const { listAllWorkspaces } = load.admin();
      const workspaces = await withDatabase(io, (knex) => listAllWorkspaces(knex));
      const lines = workspaces.map(
        (w) => `${w.workspace_id}  ${w.license.padEnd(8)}  ${String(w.rate_limit).padStart(6)}/min  ${w.active_keys} key(s)  ${w.name}`,
      );
      print(io, Boolean(opts.json), { workspaces }, lines.length ? lines.join('\n') : 'No workspaces yet (enrich workspace create --name ...)');
    });
  workspace
    .command('set-rate-limit')
    .description("Change a workspace's requests per minute (takes effect at once)")
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--rate-limit <n>', 'requests per minute', positiveInt)
    .option('--json', 'machine-readable output')
    .action(async (opts: { workspace: string; rateLimit: number; json?: boolean }) => {
      const { setRateLimit } = load.admin();
      const row = await withDatabase(io, (knex) => setRateLimit(knex, opts.workspace, opts.rateLimit));
      print(
        io,
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
      const { createKey } = load.admin();
      const created = await withDatabase(io, (knex) =>
        createKey(knex, { workspaceId: opts.workspace, member: opts.member, allowance: opts.allowance, expiresAt: opts.expiresAt }),
      );
      print(
        io,
        Boolean(opts.json),
        created,
        `Account ${created.account_id}\nAPI key (shown once): ${created.api_key}` + (created.expires_at ? `\nExpires at ${created.expires_at}` : ''),
      );
    });
  key
    .command('roll')
    .description('Rotate a key without downtime: issue a new key for the same account and make the old one expire after the overlap')
    .argument('<key>', 'the full key, its display prefix (ik_live_XXXXXX) or its key id')
    .option('--overlap <duration>', 'how long the old key keeps working: 30m, 24h, 7d, or 0 (default 24h)', duration, 86_400_000)
    .option('--expires-at <date>', 'expiry of the new key (ISO 8601); default: never', isoDate)
    .option('--workspace <id>', 'only match keys of this workspace')
    .option('--json', 'machine-readable output')
    .action(async (reference: string, opts: { overlap: number; expiresAt?: Date; workspace?: string; json?: boolean }) => {
      const { rollKey } = load.admin();
      const rolled = await withDatabase(io, (knex) =>
        rollKey(knex, { reference, overlapMs: opts.overlap, expiresAt: opts.expiresAt, workspaceId: opts.workspace }),
      );
      print(
        io,
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
      const { revokeKey } = load.admin();
      const result = await withDatabase(io, (knex) => revokeKey(knex, reference, { workspaceId: opts.workspace }));
      print(io, Boolean(opts.json), result, result.keys.map((k) => `Revoked ${k.prefix}… (${k.key_id})`).join('\n'));
    });
  key
    .command('list')
    .description("List a workspace's keys (display prefix, key id, account, status); keys themselves are never shown")
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'machine-readable output')
    .action(async (opts: { workspace: string; json?: boolean }) => {
      const { listKeys } = load.admin();
      const keys = await withDatabase(io, (knex) => listKeys(knex, opts.workspace));
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
      print(io, Boolean(opts.json), { keys: rows }, human || 'No keys');
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
      const { setLicense } = load.admin();
      const expiresAt = opts.expiry === false ? null : opts.expiresAt;
      const row = await withDatabase(io, (knex) => setLicense(knex, { workspaceId: opts.workspace, status: opts.status, expiresAt }));
      print(
        io,
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

  registerLakeCommands(program, io);
  registerMatchCommands(program, io);
  registerLiveCommands(program, io);
  registerMonitorCommands(program, io);
  registerDashboardCommands(program, io);
  registerListenCommand(program, io);
  registerJobCommands(program, io);
  return program;
}

/**
 * Runs one command line (the arguments after `enrich`) and resolves with its exit code: 0, or 1
 * with a message on stderr (commander's usage errors keep commander's own code and message).
 * `serve` resolves once the server listens; the server then keeps the process alive.
 */
export async function runCli(args: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  const streams: CliIo = { stdout: io.stdout ?? process.stdout, stderr: io.stderr ?? process.stderr, env: io.env ?? process.env };
  try {
    await buildCli(streams).parseAsync(args as string[], { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderExit || err instanceof CliExit) return err.exitCode;
    // Anything else, including an InvalidArgumentError thrown by an action, is ours to print.
    const message = err instanceof Error ? err.message : String(err);
    streams.stderr.write(`enrich: ${message}\n`);
    return 1;
  }
}

if (require.main === module) {
  void runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
