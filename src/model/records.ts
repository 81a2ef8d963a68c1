/**
 * The lake's records: the ground floor of the service. The domain (src/domain) and the
 * repositories (src/db) both import these types from here, so neither has to reach into the other
 * for them. Types only: no rule, no I/O.
 */
import type { components } from '../../generated/types';

/** A person as the lake stores it and the contract serves it. */
export type PersonRecord = components['schemas']['PersonResult'];

/** A company as the lake stores it and the contract serves it. */
export type CompanyRecord = components['schemas']['CompanyResult'];

/** The two kinds of record in the lake. */
export type LakeKind = 'person' | 'company';

/** The record of a kind. */
export type LakeRecord<K extends LakeKind> = K extends 'person' ? PersonRecord : CompanyRecord;
