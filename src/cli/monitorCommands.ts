/** `enrich monitor ...`: the operator's side of monitors: secrets, and listing and deleting them whatever the license. */
import { InvalidArgumentError, type Command } from 'commander';
import { print, withDatabase, type CliIo } from './common';
import { load } from './lazy';

/* Loaded when a monitor command runs, not when the CLI starts (lazy.ts). */
const lazy = {
  monitors: () => require('../domain/monitors/monitors') as typeof import('../domain/monitors/monitors'),
  secrets: () => require('../domain/webhooks/secrets') as typeof import('../domain/webhooks/secrets'),
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const monitorId = (value: string) => {
  if (!UUID.test(value)) throw new InvalidArgumentError('must be a monitor id (a UUID)');
  return value.toLowerCase();
};

const workspaceId = (value: string) => {
  if (!UUID.test(value)) throw new InvalidArgumentError('must be a workspace id (a UUID)');
  return value.toLowerCase();
};

const serverKeys = (io: CliIo) => {
  const config = load.config().loadConfig(io.env);
  return lazy.secrets().serverKeysOf(config);
};

export function registerMonitorCommands(program: Command, io: CliIo): void {
  const monitor = program.command('monitor').description("Monitors: webhook secrets; list and delete a workspace's monitors");
  monitor
    .command('list')
    .description("List a workspace's monitors, whatever its license (the API answers 402 without an active one)")
    .requiredOption('--workspace <id>', 'workspace id', workspaceId)
    .option('--json', 'machine-readable output (one JSON object: {monitors: [...]})')
    .action(async (opts: { workspace: string; json?: boolean }) => {
      const monitors = await withDatabase(io, (db) => lazy.monitors().operatorListMonitors(db, opts.workspace));
      const lines = monitors.map((m) => `${m.id}  ${m.active ? 'active  ' : 'inactive'}  ${m.type}  ${m.subject_url} -> ${m.webhook_url}`);
      print(io, Boolean(opts.json), { monitors }, lines.length ? lines.join('\n') : `No monitors in workspace ${opts.workspace}`);
    });
  monitor
    .command('delete')
    .description('Delete a monitor of any workspace, whatever its license; its queued deliveries are dropped')
    .argument('<monitor-id>', 'monitor id', monitorId)
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      const deleted = await withDatabase(io, (db) => lazy.monitors().operatorDeleteMonitor(db, id));
      print(io, Boolean(opts.json), { deleted: true, monitor: deleted }, `Deleted monitor ${deleted.id} (${deleted.subject_url})`);
    });
  monitor
    .command('secret')
    .description("Reveal a monitor's webhook secret, once: a second call is refused")
    .argument('<monitor-id>', 'monitor id', monitorId)
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      const keys = serverKeys(io);
      const secret = await withDatabase(io, (db) => lazy.monitors().revealSecret({ db, keys }, id));
      print(io, Boolean(opts.json), { monitor_id: id, secret }, `Webhook secret of ${id} (shown once, save it now): ${secret}`);
    });
  monitor
    .command('rotate-secret')
    .description('Issue a new webhook secret and reveal it once; the old one keeps signing for 24 h')
    .argument('<monitor-id>', 'monitor id', monitorId)
    .option(
      '--force',
      'rotate even within 24 h of the last rotation (a secret that leaked): the secret that rotation replaced stops signing now',
    )
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { force?: boolean; json?: boolean }) => {
      const keys = serverKeys(io);
      const rotated = await withDatabase(io, (db) => lazy.monitors().rotateSecret({ db, keys }, id, { force: opts.force === true }));
      const dropped = rotated.droppedUntil
        ? [`Forced: the secret replaced by the previous rotation (it would have signed until ${rotated.droppedUntil.toISOString()}) no longer signs.`]
        : [];
      print(
        io,
        Boolean(opts.json),
        {
          monitor_id: id,
          secret: rotated.secret,
          previous_signs_for_seconds: 86_400,
          ...(opts.force ? { dropped_until: rotated.droppedUntil?.toISOString() ?? null } : {}),
        },
        [`New webhook secret of ${id} (shown once, save it now): ${rotated.secret}`, 'The previous secret keeps signing deliveries for 24 h.', ...dropped].join('\n'),
      );
    });
}
