/** The realtime usage ledger: one row per metered answer (0.001 USD each), an exact decimal. */
import type { Knex } from 'knex';
import { arrayLiteral, literal } from '../literals';
import { answerLockTexts } from './idempotencyKeys';
import { lockStatement } from './locks';

export interface UsageTotals {
  calls: number;
  /** Sum of the period's costs in micro-dollars (an integer: no float ever adds them up). */
  cost_micro_usd: number;
}

export async function usageSince(db: Knex, workspaceId: string, since: Date, until: Date): Promise<UsageTotals> {
  const row = await db('realtime_usage')
    .where('workspace_id', workspaceId)
    .andWhere('created_at', '>=', since)
    .andWhere('created_at', '<', until)
    .first(db.raw('count(*)::int as calls'), db.raw('coalesce(sum(cost_usd * 1000000), 0)::bigint as cost_micro_usd'));
  return { calls: Number(row?.calls ?? 0), cost_micro_usd: Number(row?.cost_micro_usd ?? 0) };
}

export interface UsageRow {
  workspaceId: string;
  accountId: string;
  operationId: string;
  /** Exact decimal text, for example '0.001'. */
  costUsd: string;
}

/** One usage row (one statement: it commits on its own). */
export async function insertUsage(db: Knex | Knex.Transaction, row: UsageRow): Promise<void> {
  await db('realtime_usage').insert({
    workspace_id: row.workspaceId,
    account_id: row.accountId,
    operation_id: row.operationId,
    cost_usd: row.costUsd,
  });
}

/**
 * Meters one answer and, for a call with an Idempotency-Key, stores the answer under its key,
 * unless the subject was withdrawn: both are written or neither (the key's row was claimed by the
 * call as pending). `subjectId` is the lake id of the answered record (a withdrawal erases the
 * stored answer by it), `digests` its identifier digests: their locks (idempotencyKeys.ts
 * answerLockTexts) are taken first, and the tombstones read after them, so a withdrawal committed
 * since the record was read is seen and nothing is stored (false), and one still running waits for
 * this answer to commit and then erases it. One round trip: the lock and the statement go as one
 * simple query, one implicit transaction, the statement with a snapshot taken once the locks are
 * held (as locks.ts lockKeysThenRead; values as literals, db/literals.ts). Not inside a caller's
 * transaction: it is one.
 */
export async function insertUsageWithAnswer(
  db: Knex,
  row: UsageRow,
  answer: { key: string; response: string; subjectId: string; digests: readonly string[] },
): Promise<boolean> {
  const store = `with blocked as (select 1 from suppressions where digest = any(${arrayLiteral(answer.digests, 'text')}) limit 1),
     usage as (
       insert into realtime_usage (workspace_id, account_id, operation_id, cost_usd)
       select ${literal(row.workspaceId)}::uuid, ${literal(row.accountId)}::uuid, ${literal(row.operationId)}, ${literal(row.costUsd)}::numeric
       where not exists (select 1 from blocked)
     )
     update idempotency_keys set state = 'done', response = ${literal(answer.response)}, subject_id = ${literal(answer.subjectId)}::uuid
      where workspace_id = ${literal(row.workspaceId)}::uuid and key = ${literal(answer.key)} and not exists (select 1 from blocked)
     returning 1`;
  // Several statements in one simple query run as one implicit transaction: the locks are held to its end.
  const answers = (await db.raw([lockStatement(answerLockTexts(answer.digests)), store].join(';\n'))) as unknown as { rows: unknown[] }[];
  return answers[answers.length - 1]!.rows.length > 0;
}
