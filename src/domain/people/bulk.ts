/**
 * bulkEnrichPeople and bulkGetPeople (POST /people/bulk-enrich, POST /people/bulk). Every item is answered as the
 * single lookup (GET /person) would answer it, but a request costs one round of queries whatever
 * its size: one query for all the records asked for and, only when some item missed, one query on
 * the suppressions for all the misses (451 rather than 404). Never a query per item.
 */
import type { Knex } from 'knex';
import type { components } from '../../../generated/types';
import { findPersonsJson } from '../../db/repositories/personRecords';
import { suppressedDigests } from '../../db/repositories/suppressions';
import { AppError, notFound, validationError } from '../errors';
import type { PersonKey } from '../../model/identifiers';
import { isUuid, personKeyFromQuery } from '../lake/identifiers';
import { dataSubjectBlocked, keyDigests } from '../lake/suppression';
import { unstorableText } from '../text';

export type ProfileIdentifier = components['schemas']['BulkProfileIdentifier'];
type BulkResult = components['schemas']['BulkResult'];

export interface BulkItemOutcome extends Omit<BulkResult, 'data'> {
  /** The stored record as JSON text when `status` is 200, for callers that pass it on unparsed. */
  record: string | null;
}

export interface BulkOutcome {
  /** One per item, in request order. */
  results: BulkItemOutcome[];
  matched: number;
  unmatched: number;
  failed: number;
}

/**
 * The limits of GET /person's parameters in the contract (PersonNetworkUrl, PersonUsername,
 * PersonId). There the schema rejects the whole request; a bulk item is held to them on its own.
 */
const NETWORK_URL_MAX = 2048;
const USERNAME_MAX = 200;

/** POST /people/bulk-enrich: each item by the first present of network_url, username and id. */
export async function bulkEnrichPeople(db: Knex, profiles: readonly ProfileIdentifier[]): Promise<BulkOutcome> {
  return answer(
    db,
    profiles.map((input, i) => checkItem(input, `profiles[${i}]`)),
  );
}

/** POST /people/bulk: each item by service ID; `input` echoes `{id}` as sent. */
export async function bulkGetPeople(db: Knex, ids: readonly string[]): Promise<BulkOutcome> {
  return answer(
    db,
    ids.map((id, i) => checkItem({ id }, `ids[${i}]`)),
  );
}

type CheckedItem = { input: ProfileIdentifier; key: PersonKey } | { input: ProfileIdentifier; error: AppError };

/**
 * An item's key, checked as GET /person checks its query string: every identifier present must be
 * within its parameter's limits (the single lookup would answer 400 otherwise, even for one it then
 * ignores), and the first present one is used and must name a person.
 */
function checkItem(input: ProfileIdentifier, label: string): CheckedItem {
  const unstorable = unstorableText(input);
  const problem =
    (unstorable !== undefined && `${unstorable.path}: must not contain ${unstorable.character}`) ||
    (input.network_url !== undefined && !within(input.network_url, NETWORK_URL_MAX) && `network_url: must be 1-${NETWORK_URL_MAX} characters`) ||
    (input.username !== undefined && !within(input.username, USERNAME_MAX) && `username: must be 1-${USERNAME_MAX} characters`) ||
    (input.id !== undefined && !isUuid(input.id) && 'id: not a UUID');
  if (problem) return { input, error: validationError(`${label}: ${problem}`) };
  try {
    return { input, key: personKeyFromQuery(input) };
  } catch (err) {
    if (err instanceof AppError && err.code === 'VALIDATION_ERROR') {
      return { input, error: validationError(`${label}: ${err.message}`) };
    }
    throw err;
  }
}

const within = (text: string, max: number) => text.length >= 1 && text.length <= max;

async function answer(db: Knex, items: CheckedItem[]): Promise<BulkOutcome> {
  const keys = items.flatMap((item) => ('key' in item ? [item.key] : []));
  const rows = await findPersonsJson(db, {
    usernames: valuesBy(keys, 'username'),
    ids: valuesBy(keys, 'id'),
  });
  const records = new Map<string, string>();
  for (const row of rows) {
    records.set(keyText({ by: 'username', value: row.username }), row.record);
    records.set(keyText({ by: 'id', value: row.id }), row.record);
  }
  const missed = keys.filter((key) => !records.has(keyText(key)));
  // Tombstones hold digests of the normalized identifiers, exactly as assertNotWithdrawn asks.
  const withdrawn = await suppressedDigests(db, unique(missed.flatMap((key) => keyDigests('person', key))));

  const outcome: BulkOutcome = { results: [], matched: 0, unmatched: 0, failed: 0 };
  for (const item of items) {
    let result: BulkItemOutcome;
    if ('error' in item) {
      result = failure(item.input, item.error);
    } else {
      const record = records.get(keyText(item.key));
      if (record !== undefined) result = { input: item.input, status: 200, code: null, error: null, record };
      else if (keyDigests('person', item.key).some((d) => withdrawn.has(d))) result = failure(item.input, dataSubjectBlocked());
      else result = failure(item.input, notFound(`No person with ${item.key.by} "${item.key.value}" is indexed in the data lake.`));
    }
    if (result.status === 200) outcome.matched++;
    else if (result.status === 404) outcome.unmatched++;
    else outcome.failed++;
    outcome.results.push(result);
  }
  return outcome;
}

function failure(input: ProfileIdentifier, error: AppError): BulkItemOutcome {
  return {
    input,
    status: error.status as BulkItemOutcome['status'],
    code: error.code as NonNullable<BulkItemOutcome['code']>,
    error: error.message,
    record: null,
  };
}

const keyText = (key: PersonKey) => `${key.by}:${key.value}`;
const valuesBy = (keys: PersonKey[], by: PersonKey['by']) => unique(keys.filter((k) => k.by === by).map((k) => k.value));
const unique = (values: string[]) => [...new Set(values)];
