/**
 * Monitors: createMonitor, listMonitors, getMonitor, deleteMonitor (both forms), and the one-time
 * reveal of a monitor's secret. A monitor of another workspace is answered like a missing one.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import * as repo from '../../db/repositories/monitors';
import { tombstoneMonitorEvents } from '../../db/repositories/eventFeed';
import { setWatchersByUsername } from '../../db/repositories/refreshQueue';
import { findWorkspaceById } from '../../db/repositories/workspaces';
import { AppError, notFound, validationError } from '../errors';
import { slugFromNetworkUrl } from '../lake/identifiers';
import { assertNotWithdrawn } from '../lake/suppression';
import { hasFormattingCharacters } from '../text';
import { assertWebhookUrlAllowed, type ResolveHost, type SsrfPolicy } from '../webhooks/ssrf';
import { generateWebhookSecret, type ServerKeys } from '../webhooks/secrets';

export type Monitor = components['schemas']['Monitor'];
export type CreateMonitorRequest = components['schemas']['CreateMonitorRequest'];
type MonitorType = Monitor['type'];
type MonitorEvent = components['schemas']['MonitorEvent'];

/** Every event of each type, in the contract's order: the subscription when `events` is omitted. */
export const EVENTS_BY_TYPE: Record<MonitorType, readonly MonitorEvent[]> = {
  person: ['person.job_changed', 'person.title_changed', 'person.location_changed'],
  company: ['company.headcount_changed', 'company.name_changed', 'company.hq_changed', 'company.industry_changed'],
};

const SECTION: Record<MonitorType, 'in' | 'company'> = { person: 'in', company: 'company' };

export interface MonitorDeps {
  db: Knex;
  keys: ServerKeys;
  resolveHost: ResolveHost;
  ssrf: SsrfPolicy;
  maxPerWorkspace: number;
}

/** The canonical subject URL: the same slug rule as the lookups. */
export const subjectUrl = (type: MonitorType, slug: string) =>
  `https://www.linkedin.com/${SECTION[type]}/${encodeURIComponent(slug)}`;

function toMonitor(row: repo.MonitorRow): Monitor {
  return {
    id: row.id,
    type: row.type,
    // A withdrawn subject (privacy request) leaves no trace of who it was: no slug, no label.
    subject_url: row.subject_slug === null ? null : subjectUrl(row.type, row.subject_slug),
    label: row.label,
    webhook_url: row.webhook_url,
    events: row.events as MonitorEvent[],
    active: row.active,
    created_at: row.created_at.toISOString(),
  };
}

export async function createMonitor(deps: MonitorDeps, workspaceId: string, req: CreateMonitorRequest): Promise<Monitor> {
  const slug = slugFromNetworkUrl(req.subject_url, SECTION[req.type]);
  if (!slug) {
    throw validationError(
      req.type === 'person'
        ? 'subject_url: not a person profile URL; expected https://www.linkedin.com/in/<username>'
        : 'subject_url: not a company page URL; expected https://www.linkedin.com/company/<username>',
    );
  }
  const allowed = EVENTS_BY_TYPE[req.type];
  const foreign = (req.events ?? []).filter((e) => !allowed.includes(e));
  if (foreign.length) throw validationError(`events: ${foreign.join(', ')} cannot be subscribed on a ${req.type} monitor`);
  const events = req.events ? allowed.filter((e) => req.events!.includes(e)) : [...allowed];
  // The one rule of names (workspaces/admin.ts checkName): a label is shown in the dashboard and the CLI.
  if (req.label && hasFormattingCharacters(req.label)) throw validationError('label must not contain control or bidirectional formatting characters');
  const url = await assertWebhookUrlAllowed(req.webhook_url, deps.ssrf, deps.resolveHost);
  await assertNotWithdrawn(deps.db, req.type, { by: 'username', value: slug });
  const secret = deps.keys.encrypt(generateWebhookSecret());
  return deps.db.transaction(async (trx) => {
    const count = await repo.lockWorkspaceMonitors(trx, workspaceId);
    if (count >= deps.maxPerWorkspace) {
      throw new AppError(
        'MONITOR_LIMIT_REACHED',
        `The workspace already has the maximum of ${deps.maxPerWorkspace} monitors. Delete one before creating another.`,
      );
    }
    const row = await repo.insertMonitor(trx, {
      workspace_id: workspaceId,
      type: req.type,
      subject_slug: slug,
      label: req.label ?? null,
      webhook_url: url.href,
      events,
      secret_ciphertext: secret,
    });
    await syncWatchers(trx, req.type, slug);
    return toMonitor(row);
  });
}

/** The subject's watcher count follows its monitors: created or deleted in the same transaction. */
async function syncWatchers(trx: Knex.Transaction, type: MonitorType, slug: string): Promise<void> {
  await setWatchersByUsername(trx, type, slug, await repo.countSubjectMonitors(trx, type, slug));
}

export async function listMonitors(db: Knex, workspaceId: string): Promise<Monitor[]> {
  return (await repo.listMonitors(db, workspaceId)).map(toMonitor);
}

const monitorNotFound = () => notFound('No monitor with this id in the workspace.');

export async function getMonitor(db: Knex, workspaceId: string, id: string): Promise<Monitor> {
  const row = await repo.findMonitor(db, workspaceId, id.toLowerCase());
  if (!row) throw monitorNotFound();
  return toMonitor(row);
}

export async function deleteMonitor(db: Knex, workspaceId: string, id: string): Promise<void> {
  await db.transaction(async (trx) => {
    const row = await repo.deleteMonitor(trx, workspaceId, id.toLowerCase());
    if (!row) throw monitorNotFound();
    // Its events leave the feed, their positions stay: a subscriber continues `after=` any of them.
    await tombstoneMonitorEvents(trx, workspaceId, row.id);
    if (row.subject_slug !== null) await syncWatchers(trx, row.type, row.subject_slug);
  });
}

export class SecretAlreadyRevealed extends Error {}

/**
 * Operators (`enrich monitor secret ID`) and the dashboard: the secret in clear, exactly once.
 * A second call throws SecretAlreadyRevealed; an unknown monitor throws NOT_FOUND.
 */
export async function revealSecret(deps: Pick<MonitorDeps, 'db' | 'keys'>, id: string): Promise<string> {
  const taken = await repo.takeSecretForReveal(deps.db, id.toLowerCase());
  if (taken) return deps.keys.decrypt(taken.secret_ciphertext);
  const state = await repo.secretState(deps.db, id.toLowerCase());
  if (!state) throw monitorNotFound();
  throw new SecretAlreadyRevealed('The secret of this monitor was already revealed; it is never shown twice.');
}

/** How long a replaced secret keeps signing after `enrich monitor rotate-secret`. */
export const ROTATION_OVERLAP_SECONDS = 24 * 3600;

/**
 * Operators (`enrich monitor rotate-secret ID`) and the dashboard: a new secret, revealed now
 * (once); the replaced one keeps signing for 24 h, so a delivery carries two `v1,` signatures in
 * that window. One rotation at a time: while the secret replaced by the last rotation still signs,
 * another rotation is a 409 SECRET_ROTATION_IN_PROGRESS. Otherwise it would push that secret out
 * before its 24 h (and, of concurrent rotations, hand out secrets that never signed anything:
 * issue 20): every secret handed out signs until 24 h after it is replaced.
 *
 * `force` (the operator's CLI only, `--force`; never the API): a secret that leaked must be
 * replaceable at once, not a day later. The rotation then happens anyway: the secret the last
 * rotation replaced stops signing now (reported as `dropped_until`, the end it had), and the
 * current one becomes the one that signs 24 h more beside the new one, so receivers switch over
 * without failed verifications. Its leak does not matter for that: a receiver that verifies with
 * the new secret refuses what the leaked one signs.
 */
export async function rotateSecret(deps: Pick<MonitorDeps, 'db' | 'keys'>, id: string, opts: { force?: boolean } = {}): Promise<RotatedSecret> {
  const secret = generateWebhookSecret();
  const rotated = await repo.rotateSecret(deps.db, id.toLowerCase(), deps.keys.encrypt(secret), ROTATION_OVERLAP_SECONDS, opts);
  if (rotated.outcome === 'not_found') throw monitorNotFound();
  if (rotated.outcome === 'in_progress') {
    throw new AppError(
      'SECRET_ROTATION_IN_PROGRESS',
      `This monitor's secret was rotated less than 24 h ago: the secret that rotation replaced signs until ${rotated.until.toISOString()}, ` +
        'and the current one is the secret that rotation returned. Rotate again after that time (an operator can force it: `enrich monitor rotate-secret ID --force`).',
    );
  }
  return { secret, droppedUntil: rotated.droppedUntil };
}

export interface RotatedSecret {
  secret: string;
  /** A forced rotation only: the end the secret it stopped signing early would have had. */
  droppedUntil: Date | null;
}

/** The secrets in clear that sign a delivery of this monitor now (current first). */
export async function signingSecrets(deps: Pick<MonitorDeps, 'db' | 'keys'>, id: string): Promise<string[]> {
  const stored = await repo.signingSecrets(deps.db, id.toLowerCase());
  if (!stored) throw monitorNotFound();
  return stored.map((c) => deps.keys.decrypt(c));
}

/**
 * Operators (`enrich monitor list --workspace ID`): a workspace's monitors whatever its license.
 * A workspace without an active license gets 402 on every monitor call (the specification's rule
 * for every request), so this, with operatorDeleteMonitor, is how its monitors are found and
 * removed meanwhile; their deliveries are paused until the license is active again.
 */
export async function operatorListMonitors(db: Knex, workspaceId: string): Promise<Monitor[]> {
  if (!(await findWorkspaceById(db, workspaceId))) throw notFound(`no workspace with id "${workspaceId}"`);
  return listMonitors(db, workspaceId);
}

/** Operators (`enrich monitor delete ID`): deletes a monitor of any workspace, as DELETE /monitors/{id} does. */
export async function operatorDeleteMonitor(db: Knex, id: string): Promise<Monitor> {
  const row = await repo.findMonitorById(db, id.toLowerCase());
  if (!row) throw notFound(`no monitor with id "${id}"`);
  await deleteMonitor(db, row.workspace_id, row.id);
  return toMonitor(row);
}
