/**
 * The checkpoint of a resumable initial load (migration 20261205002200_import_checkpoints): one row
 * per lake kind while the load is under way. importer.ts advances it in the transaction of each
 * chunk it commits, so the row and the lake never disagree.
 */
import type { Knex } from 'knex';
import type { LakeKind } from '../../model/records';
import type { SetAside } from './lakeIndexes';

export interface ImportCheckpoint<R = unknown> {
  kind: LakeKind;
  file: string;
  file_size: number;
  file_head: string;
  /** Bytes of the (decompressed) input up to and including the last committed line's newline. */
  byte_offset: number;
  /** The last committed line's number. */
  line: number;
  report: R;
  set_aside: SetAside;
}

const COLUMNS = 'kind, file, file_size::float8 as file_size, file_head, byte_offset::float8 as byte_offset, line::float8 as line, report, set_aside';

export async function findImportCheckpoint<R>(db: Knex, kind: LakeKind): Promise<ImportCheckpoint<R> | undefined> {
  const { rows } = await db.raw<{ rows: ImportCheckpoint<R>[] }>(`select ${COLUMNS} from lake_import_checkpoints where kind = ?`, [kind]);
  return rows[0];
}

export async function insertImportCheckpoint(
  trx: Knex.Transaction,
  row: Pick<ImportCheckpoint, 'kind' | 'file' | 'file_size' | 'file_head' | 'report' | 'set_aside'>,
): Promise<void> {
  await trx.raw(
    'insert into lake_import_checkpoints (kind, file, file_size, file_head, report, set_aside) values (?, ?, ?, ?, ?::jsonb, ?::jsonb)',
    [row.kind, row.file, row.file_size, row.file_head, JSON.stringify(row.report), JSON.stringify(row.set_aside)],
  );
}

/**
 * The start of a chunk's transaction, in one round trip (a round trip costs most on a busy machine):
 * - the transaction commits without waiting for its WAL flush (this transaction only): the
 *   checkpoint commits with the chunk, so a commit a server crash loses takes its checkpoint advance
 *   with it, and --resume writes the chunk again;
 * - the checkpoint row, locked until the transaction ends (one chunk committer at a time).
 * Two statements in one simple query, so the kind is written into it (one of the two lake kinds,
 * checked here), not bound.
 */
export async function beginChunk<R>(trx: Knex.Transaction, kind: LakeKind): Promise<ImportCheckpoint<R> | undefined> {
  if (kind !== 'person' && kind !== 'company') throw new Error(`not a lake kind: ${String(kind)}`);
  const results = (await trx.raw(
    `set local synchronous_commit = off; select ${COLUMNS} from lake_import_checkpoints where kind = '${kind}' for update`,
  )) as unknown as { rows: ImportCheckpoint<R>[] }[];
  return results[1]!.rows[0];
}

export async function advanceImportCheckpoint(
  trx: Knex.Transaction,
  kind: LakeKind,
  at: { byteOffset: number; line: number; report: unknown },
): Promise<void> {
  await trx.raw('update lake_import_checkpoints set byte_offset = ?, line = ?, report = ?::jsonb, updated_at = now() where kind = ?', [
    at.byteOffset,
    at.line,
    JSON.stringify(at.report),
    kind,
  ]);
}

export async function deleteImportCheckpoint(db: Knex, kind: LakeKind): Promise<void> {
  await db.raw('delete from lake_import_checkpoints where kind = ?', [kind]);
}
