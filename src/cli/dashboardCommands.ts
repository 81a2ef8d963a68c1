/** `enrich dashboard link`: a single-use sign-in link to the workspace dashboard. */
import type { Command } from 'commander';
import { print, withDatabase, type CliIo } from './common';
import { load } from './lazy';

const lazy = {
  sessions: () => require('../domain/workspaces/sessions') as typeof import('../domain/workspaces/sessions'),
};

export function registerDashboardCommands(program: Command, io: CliIo): void {
  const dashboard = program.command('dashboard').description('The workspace dashboard');
  dashboard
    .command('link')
    .description('Print a single-use sign-in link to the dashboard, valid 15 minutes')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--member <name>', 'sign in as this member (default: the owner)')
    .option('--url <base>', 'where the server is reached (default http://127.0.0.1:$PORT)')
    .option('--json', 'machine-readable output')
    .action(async (opts: { workspace: string; member?: string; url?: string; json?: boolean }) => {
      const config = load.config().loadConfig(io.env);
      const base = opts.url ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`;
      const link = await withDatabase(io, (db) => lazy.sessions().createSignInLink(db, { workspaceId: opts.workspace, member: opts.member }));
      const url = lazy.sessions().signInUrl(base, link.token);
      print(io, Boolean(opts.json), { url, expires_at: link.expires_at, account: link.account }, `Sign-in link for ${link.account.name} (single use, valid until ${link.expires_at}):\n  ${url}`);
    });
}
