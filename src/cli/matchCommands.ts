/**
 * `enrich match person | company`: the match engine for an operator, straight on the lake (no API
 * key, no HTTP): one query from the options, or a file of queries (NDJSON, one PersonMatchRequest
 * per line) answered as NDJSON lines of the bulk result. Exit code 0 when matched, 1 when not
 * (NO_MATCH), 2 when the query holds too little (MATCH_INPUT_INSUFFICIENT, message on stderr).
 */
import { readFileSync } from 'node:fs';
import { Argument, InvalidArgumentError, type Command } from 'commander';
import { CliExit, withDatabase, type CliIo } from './common';
import { load } from './lazy';

function likelihood(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('must be a number from 0 to 1');
  return n;
}

function candidateCount(value: string): number {
  if (!/^[0-9]{1,2}$/.test(value) || Number(value) < 1 || Number(value) > 10) throw new InvalidArgumentError('must be an integer from 1 to 10');
  return Number(value);
}

function companyId(value: string): string {
  if (!/^[0-9]{1,19}$/.test(value)) throw new InvalidArgumentError('must be 1 to 19 digits');
  return value;
}

interface MatchOptions {
  name?: string;
  firstName?: string;
  lastName?: string;
  company?: string;
  companyDomain?: string;
  companyId?: string;
  email?: string;
  title?: string;
  location?: string;
  school?: string;
  domain?: string;
  minLikelihood?: number;
  candidates?: number;
  file?: string;
  json?: boolean;
}

interface Verdict {
  likelihood: number;
  ambiguous: boolean;
  evidence: { field: string; level: string; input: string | null; record: string | null; weight: number }[];
}

const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

function describe(label: string, match: Verdict): string {
  const lines = [`${label}  likelihood ${match.likelihood}${match.ambiguous ? ' (ambiguous: another record fits nearly as well)' : ''}`];
  for (const e of match.evidence) {
    const sign = e.weight > 0 ? '+' : '';
    lines.push(`  ${e.field.padEnd(15)} ${e.level.padEnd(18)} ${sign}${e.weight.toFixed(2)}  ${e.input ?? ''}${e.record !== null ? ` / ${e.record}` : ''}`);
  }
  return lines.join('\n');
}

export function registerMatchCommands(program: Command, io: CliIo): void {
  program
    .command('match')
    .description(
      'Match a person or a company from what a list holds (name, employer, work email, domain, location), with the likelihood and the evidence (as POST /person/match and /company/match)',
    )
    .addArgument(new Argument('<kind>', 'record kind').choices(['person', 'company']))
    .option('--name <text>', 'full name (person) or company name (company)')
    .option('--first-name <text>', 'given name (person)')
    .option('--last-name <text>', 'family name (person)')
    .option('--company <text>', "employer's name (person)")
    .option('--company-domain <domain>', "employer's website or domain (person)")
    .option('--company-id <digits>', "employer's numeric company ID (person)", companyId)
    .option('--email <address>', 'work email (person), or any email at the company (company)')
    .option('--title <text>', 'job title (person)')
    .option('--location <text>', 'city, region, country or ISO code')
    .option('--school <text>', 'a school of the education history (person)')
    .option('--domain <domain>', 'website or domain (company)')
    .option('--min-likelihood <p>', 'the bar, 0 to 1 (default 0.7)', likelihood)
    .option('--candidates <n>', 'list up to n scored candidates (1-10)', candidateCount)
    .option('--file <path>', 'person queries, one JSON object per line (NDJSON); answers one line each')
    .option('--json', 'machine-readable output')
    .action(async (kind: 'person' | 'company', opts: MatchOptions) => {
      const match = load.match();
      const { AppError } = load.errors();
      if (opts.file !== undefined) {
        if (kind !== 'person') throw new InvalidArgumentError('--file takes person queries only');
        const queries = readFileSync(opts.file, 'utf8')
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line, i) => {
            try {
              return JSON.parse(line) as Record<string, unknown>;
            } catch {
              throw new InvalidArgumentError(`${opts.file}: line ${i + 1} is not JSON`);
            }
          });
        await withDatabase(io, async (knex) => {
          for (let i = 0; i < queries.length; i += 100) {
            const outcome = await match.bulkMatchPeople(knex, queries.slice(i, i + 100) as never, opts.minLikelihood);
            for (const { text, ...item } of outcome.results) {
              io.stdout.write(`${JSON.stringify({ ...item, data: text === null ? null : JSON.parse(text) })}\n`);
            }
          }
        });
        return;
      }
      const common = { min_likelihood: opts.minLikelihood, candidates: opts.candidates };
      try {
        type Outcome = { text: string; match: unknown; candidates?: { data: unknown; match: unknown }[] };
        const outcome = await withDatabase<Outcome>(io, (knex) =>
          kind === 'person'
            ? match.matchPerson(
                knex,
                defined({
                  name: opts.name, first_name: opts.firstName, last_name: opts.lastName, company: opts.company, company_domain: opts.companyDomain,
                  company_id: opts.companyId, email: opts.email, title: opts.title, location: opts.location, school: opts.school, ...common,
                }),
              )
            : match.matchCompany(knex, defined({ name: opts.name, domain: opts.domain, email: opts.email, location: opts.location, ...common })),
        );
        const data = JSON.parse(outcome.text) as { id: string; full_name?: string; name?: string; current_company?: string | null };
        if (opts.json) {
          io.stdout.write(`${JSON.stringify({ data, match: outcome.match, ...(outcome.candidates ? { candidates: outcome.candidates } : {}) })}\n`);
          return;
        }
        const label = kind === 'person' ? `${data.full_name} (${data.id})${data.current_company ? ` at ${data.current_company}` : ''}` : `${data.name} (${data.id})`;
        io.stdout.write(`${describe(label, outcome.match as Verdict)}\n`);
        for (const c of outcome.candidates?.slice(1) ?? []) {
          const hit = c.data as { id: string; full_name?: string; name?: string };
          io.stdout.write(`${describe(`candidate: ${hit.full_name ?? hit.name} (${hit.id})`, c.match as Verdict)}\n`);
        }
      } catch (err) {
        if (!(err instanceof AppError) || (err.code !== 'NO_MATCH' && err.code !== 'MATCH_INPUT_INSUFFICIENT' && err.code !== 'VALIDATION_ERROR')) throw err;
        if (opts.json) io.stdout.write(`${JSON.stringify({ code: err.code, error: err.message })}\n`);
        else io.stderr.write(`${err.code}: ${err.message}\n`);
        throw new CliExit(err.code === 'NO_MATCH' ? 1 : 2);
      }
    });
}
