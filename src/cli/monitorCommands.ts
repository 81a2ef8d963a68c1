/** `enrich monitor ...`: the operator's side of monitor secrets. */
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../config';
import { revealSecret, rotateSecret } from '../domain/monitors/monitors';
import { loadServerKeys } from '../domain/webhooks/secrets';
import { print, withDatabase } from './common';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const monitorId = (value: string) => {
  if (!UUID.test(value)) throw new InvalidArgumentError('must be a monitor id (a UUID)');
  return value.toLowerCase();
};

const serverKeys = () => {
  const config = loadConfig();
  return loadServerKeys({ key: config.webhooks.secretKey, previous: config.webhooks.previousSecretKeys, dataDir: config.dataDir });
};

export function registerMonitorCommands(program: Command): void {
  const monitor = program.command('monitor').description('Monitor webhook secrets');
  monitor
    .command('secret')
    .description("Reveal a monitor's webhook secret, once: a second call is refused")
    .argument('<monitor-id>', 'monitor id', monitorId)
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      const keys = serverKeys();
      const secret = await withDatabase((db) => revealSecret({ db, keys }, id));
      print(Boolean(opts.json), { monitor_id: id, secret }, `Webhook secret of ${id} (shown once, save it now): ${secret}`);
    });
  monitor
    .command('rotate-secret')
    .description('Issue a new webhook secret and reveal it once; the old one keeps signing for 24 h')
    .argument('<monitor-id>', 'monitor id', monitorId)
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      const keys = serverKeys();
      const secret = await withDatabase((db) => rotateSecret({ db, keys }, id));
      print(
        Boolean(opts.json),
        { monitor_id: id, secret, previous_signs_for_seconds: 86_400 },
        `New webhook secret of ${id} (shown once, save it now): ${secret}\nThe previous secret keeps signing deliveries for 24 h.`,
      );
    });
}
