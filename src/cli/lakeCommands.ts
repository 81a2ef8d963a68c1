/** Data lake commands: seed, import, suppress. */
import { Argument, InvalidArgumentError, type Command } from 'commander';
// Types only: the modules themselves are loaded by the action that runs (see lazy.ts).
import type { SeedProgress } from '../world/seed';
import { CliExit, parseIsoDate, positiveInt, print, withDatabase, type CliIo } from './common';
import { load } from './lazy';
import type { Progress } from './progress';

function nonNegativeInt(value: string): number {
  if (!/^[0-9]+$/.test(value)) throw new InvalidArgumentError('must be a non-negative integer');
  return Number(value);
}

function calendarDate(value: string): Date {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? parseIsoDate(value) : undefined;
  if (!date) throw new InvalidArgumentError('must be a date, YYYY-MM-DD');
  return date;
}

/** One bar per kind: companies are loaded before persons. */
function seedProgress(io: CliIo, quiet: boolean): { onProgress: (p: SeedProgress) => void; stop: () => void } {
  const { createProgress } = load.progress();
  let current: { kind: string; bar: Progress } | undefined;
  return {
    onProgress: (p) => {
      if (current?.kind !== p.kind) {
        current?.bar.stop();
        current = { kind: p.kind, bar: createProgress(p.kind === 'person' ? 'persons' : 'companies', p.total, quiet, io.stderr) };
      }
      current.bar.update(p.done);
    },
    stop: () => current?.bar.stop(),
  };
}

export function registerLakeCommands(program: Command, io: CliIo): void {
  program
    .command('seed')
    .description(
      'Generate a deterministic synthetic world (same options -> byte-identical records) and load it into the lake, or write it as NDJSON with --out',
    )
    .option('--persons <n>', 'number of persons', nonNegativeInt, 1000)
    .option('--companies <n>', 'number of companies (at least 1 when there are persons)', nonNegativeInt, 100)
    .option('--seed <n>', 'random seed', nonNegativeInt, 1)
    .option('--as-of <date>', "the world's today, YYYY-MM-DD (default: today, UTC); dates are relative to it", calendarDate)
    .option('--out <dir>', 'write companies.ndjson and persons.ndjson into this directory instead of loading')
    .option(
      '--load-persons <n>',
      'load only the first n persons of the world (a live-source simulator of the same world still knows the others)',
      nonNegativeInt,
    )
    .option('--json', 'machine-readable output')
    .action(
      async (opts: { persons: number; companies: number; seed: number; asOf?: Date; out?: string; loadPersons?: number; json?: boolean }) => {
        if (opts.persons > 0 && opts.companies < 1) throw new InvalidArgumentError('--companies must be at least 1 when --persons > 0');
        const { seedLake, writeWorldFiles } = load.seed();
        const { defaultAsOf } = load.world();
        const world = { persons: opts.persons, companies: opts.companies, seed: opts.seed, asOf: opts.asOf ?? defaultAsOf() };
        const progress = seedProgress(io, Boolean(opts.json));
        try {
          if (opts.out) {
            const report = await writeWorldFiles(opts.out, world, progress.onProgress);
            progress.stop();
            print(
              io,
              Boolean(opts.json),
              report,
              `Wrote ${report.companies} companies and ${report.persons} persons (seed ${report.seed}, as of ${report.as_of.slice(0, 10)}):\n${report.files.join('\n')}`,
            );
          } else {
            const report = await withDatabase(io, (knex) => seedLake(knex, { ...world, loadPersons: opts.loadPersons }, progress.onProgress));
            progress.stop();
            print(
              io,
              Boolean(opts.json),
              report,
              `Loaded ${report.companies} companies and ${report.loaded_persons} persons (of a world of ${report.persons}; seed ${report.seed}, as of ${report.as_of.slice(0, 10)}) in ${(report.elapsed_ms / 1000).toFixed(1)} s`,
            );
          }
        } finally {
          progress.stop();
        }
      },
    );

  program
    .command('import')
    .description(
      'Import NDJSON (optionally gzip) records in the contract shapes (PersonResult / CompanyResult); upserts by identifier',
    )
    .addArgument(new Argument('<kind>', 'record kind').choices(['persons', 'companies']))
    .argument('<file>', 'NDJSON file, one record per line; .gz or any gzip stream is detected')
    .option('--strict', 'abort on the first invalid line and write nothing')
    .option(
      '--initial-load',
      'into an empty lake only: typed rows by COPY, committed in chunks with a checkpoint, secondary indexes and foreign keys built after the data',
    )
    .option('--resume', 'continue an interrupted --initial-load of the same file after its last committed chunk')
    .option('--batch-size <n>', 'records per write (under --initial-load: per chunk, the unit a repeat within is folded in)', positiveInt, 1000)
    .option('--chunks-per-commit <n>', '--initial-load: chunks written together (one COPY per table) and committed with one checkpoint', positiveInt, 5)
    .option(
      '--lanes <n>',
      'connections each batch is written on at once, split by identity (default: one per core, at most 4; 1 under --strict and --initial-load)',
      positiveInt,
    )
    // 16 MiB: importer.ts DEFAULT_MAX_LINE_BYTES (not imported here: the CLI starts without it).
    .option('--max-line-bytes <n>', 'longer lines are skipped without being read into memory', positiveInt, 16 * 1024 * 1024)
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      '\nExit status: 0 all record lines imported; 2 some lines skipped (reported); 3 nothing imported (every line skipped);\n' +
        '4 the input broke off (truncated gzip, read error: what was read is imported); 1 error (nothing imported under --strict).',
    )
    .action(
      async (
        kind: 'persons' | 'companies',
        file: string,
        opts: { strict?: boolean; initialLoad?: boolean; resume?: boolean; batchSize: number; chunksPerCommit: number; lanes?: number; maxLineBytes: number; json?: boolean },
      ) => {
      const { importFile, ImportAborted, importExitCode } = load.importer();
      const { recordValidator } = load.recordSchemas();
      const { createProgress } = load.progress();
      const quiet = Boolean(opts.json);
      let bar: Progress | undefined;
      const printed = { count: 0 };
      try {
        const report = await withDatabase(io, (knex) =>
          importFile(knex, {
            kind: kind === 'persons' ? 'person' : 'company',
            file,
            strict: opts.strict,
            initialLoad: opts.initialLoad,
            resume: opts.resume,
            batchSize: opts.batchSize,
            chunksPerCommit: opts.chunksPerCommit,
            lanes: opts.lanes,
            maxLineBytes: opts.maxLineBytes,
            validate: recordValidator(kind === 'persons' ? 'PersonResult' : 'CompanyResult'),
            onInvalid: (invalid) => {
              if (quiet || printed.count++ >= 100) return;
              io.stderr.write(`line ${invalid.line}: ${invalid.reason} (skipped)\n`);
            },
            onProgress: (p) => {
              // Records (lines) counted; their total is known only at the end, so it is
              // extrapolated from the share of the file read (importProgress.ts).
              const { done, total } = load.importProgress().recordEstimate(p);
              bar ??= createProgress(`import ${kind}`, total, quiet, io.stderr, { unit: 'records' });
              bar.setTotal(total);
              bar.update(done, `${p.written} written, ${p.invalid} invalid`);
            },
          }),
        );
        bar?.stop();
        if (!quiet && report.invalid > 100) io.stderr.write(`... and ${report.invalid - 100} more invalid lines\n`);
        print(
          io,
          Boolean(opts.json),
          report,
          [
            `Imported ${report.written} ${kind} from ${report.lines} lines in ${(report.elapsed_ms / 1000).toFixed(1)} s (${report.records_per_second} records/s)`,
            `invalid lines skipped: ${report.invalid}; withdrawn records refused: ${report.withdrawn}; duplicates in file: ${report.duplicates}`,
            ...(report.complete ? [] : [`INCOMPLETE: ${report.error}`]),
          ].join('\n'),
        );
        if (!report.complete && !quiet) io.stderr.write(`enrich: ${report.error}\n`);
        const code = importExitCode(report);
        if (code !== 0) throw new CliExit(code);
      } catch (err) {
        bar?.stop();
        if (err instanceof ImportAborted && opts.json) {
          io.stdout.write(`${JSON.stringify({ aborted: true, written: 0, line: err.invalid.line, reason: err.invalid.reason })}\n`);
        }
        throw err;
      }
    });

  program
    .command('suppress')
    .description(
      'Withdraw a record under a GDPR / CCPA request: deletes it from the lake and blocks every identifier with 451, also against re-import',
    )
    .addArgument(new Argument('<kind>', 'record kind').choices(['person', 'company']))
    .argument('<identifier>', 'profile/company URL, username, id (UUID), network_id or network_urn (persons), company_id (companies)')
    .option('--json', 'machine-readable output')
    .action(async (kind: 'person' | 'company', identifier: string, opts: { json?: boolean }) => {
      const { keyFromOperatorInput } = load.identifiers();
      const { suppress, reclaimWithdrawnSpace } = load.suppression();
      const outcome = await withDatabase(io, async (knex) => {
        const result =
          kind === 'person'
            ? await suppress(knex, 'person', keyFromOperatorInput('person', identifier))
            : await suppress(knex, 'company', keyFromOperatorInput('company', identifier));
        await reclaimWithdrawnSpace(knex, kind);
        return result;
      });
      print(
        io,
        Boolean(opts.json),
        outcome,
        outcome.found
          ? `Withdrawn: ${kind} ${outcome.deleted_id} deleted; ${outcome.identifiers_blocked} identifiers now answer 451`
          : `No ${kind} with this identifier is in the lake; the identifier is blocked (451) and the record will be refused if imported`,
      );
    });
}
