/** Stage 3 of matching: fields into levels (domain/match/compare.ts). */
import {
  compareCompany, compareEmailLocal, edits, compareEmployerIds, compareName, comparePerson, comparePlace, compareSchool, compareTitle,
  personPlace, type PersonCandidate, type PersonQuery,
} from '../../../src/domain/match/compare';
import { companyKey, parseEmail, parseName, placeOf } from '../../../src/domain/match/normalize';

const person = (over: Partial<PersonCandidate> = {}): PersonCandidate => ({
  id: '00000000-0000-4000-8000-000000000001',
  full_name: 'Robert Smith',
  first_name: 'Robert',
  last_name: 'Smith',
  current_company: 'Acme Corporation',
  current_company_id: '100',
  current_title: 'Vice President of Sales',
  geo_city: 'Austin',
  geo_country: 'United States',
  geo_country_code: 'US',
  education_schools: ['The University of Texas at Austin'],
  positions: [
    { companyName: 'Acme Corporation', companyId: '100', isCurrent: true, title: 'Vice President of Sales', location: 'Austin, Texas, United States' },
    { companyName: 'Globex Inc.', companyId: '200', isCurrent: false, title: 'Sales Manager' },
  ],
  ...over,
});
const none = { byName: new Set<string>(), byFormerName: new Set<string>(), byDomain: new Set<string>() };
const level = (name: string, rec = person()) => compareName(parseName(name), rec).level;

describe('compareName', () => {
  it('grades names: exact, swapped, nickname, initial, typo, another first name, another person', () => {
    expect(level('Robert Smith')).toBe('exact');
    expect(level('ROBERT SMITH')).toBe('exact');
    expect(level('Smith, Robert')).toBe('exact');
    expect(level('Smith Robert')).toBe('exact');
    expect(level('Bob Smith')).toBe('nickname');
    expect(level('R. Smith')).toBe('nickname');
    expect(level('Robert J. Smith')).toBe('exact');
    expect(level('Robert Smiht')).toBe('close');
    // Two given names of their own one letter apart are another person, not a typo (issue 33: an
    // absent "Gina McLaughlin" was answered with her namesake "Gino McLaughlin" at 0.98).
    expect(level('Roberta Smith')).toBe('partial');
    const gino = person({ full_name: 'Gino McLaughlin', first_name: 'Gino', last_name: 'McLaughlin' });
    expect(level('Gina McLaughlin', gino)).toBe('partial');
    expect(level('Gina McLaughlinn', gino)).toBe('different');
    expect(level('Mary Smith', person({ full_name: 'Mark Smith', first_name: 'Mark', last_name: 'Smith' }))).toBe('partial');
    // A typo that makes no name stays a typo: a swap of two neighbouring letters is one slip.
    expect(level('Rboert Smith')).toBe('close');
    expect(level('Ncik Smith', person({ full_name: 'Nick Smith', first_name: 'Nick', last_name: 'Smith' }))).toBe('close');
    // Two typos in a first name of five letters or more, the last name as written: still close; not with the last name mistyped too.
    expect(level('Setphaby Harvey', person({ full_name: 'Stephany Harvey', first_name: 'Stephany', last_name: 'Harvey' }))).toBe('close');
    expect(level('Mabbel Smith', person({ full_name: 'Mabel Smith', first_name: 'Mabel', last_name: 'Smith' }))).toBe('close');
    expect(level('Karen Hagenes', person({ full_name: 'Kavon Hagenes', first_name: 'Kavon', last_name: 'Hagenes' }))).toBe('partial');
    expect(level('Mxbbel Smiht', person({ full_name: 'Mabel Smith', first_name: 'Mabel', last_name: 'Smith' }))).toBe('different');
    // A typo that moves a space: the words joined whole.
    expect(level('Isa deB oer', person({ full_name: 'Isa de Boer', first_name: 'Isa', last_name: 'de Boer' }))).toBe('close');
    // A short form is close; a longer prefix is a name of its own (another person at the company).
    expect(level('Rob Smith', person({ full_name: 'Robinson Smith', first_name: 'Robinson', last_name: 'Smith' }))).toBe('close');
    expect(level('Shreya A. Smith', person({ full_name: 'Shreyashi Smith', first_name: 'Shreyashi', last_name: 'Smith' }))).toBe('partial');
    expect(level('Alice Smith')).toBe('partial');
    expect(level('Alice Jones')).toBe('different');
  });

  it('folds accents on both sides', () => {
    expect(level('Jose Alvarez', person({ full_name: 'José Álvarez', first_name: 'José', last_name: 'Álvarez' }))).toBe('exact');
  });
});

describe('edits', () => {
  it('counts typing errors, a swap of neighbouring letters as one', () => {
    expect(edits('nick', 'ncik')).toBe(1);
    expect(edits('stephany', 'setphaby')).toBe(2);
    expect(edits('smith', 'smiht')).toBe(1);
    expect(edits('smith', 'jones')).toBe(5);
    expect(edits('abc', 'abc')).toBe(0);
  });
});

describe('compareEmailLocal', () => {
  const at = (local: string) => compareEmailLocal(parseEmail(`${local}@acme.com`)!, person()).level;
  it('recognises the usual address patterns of the name', () => {
    for (const local of ['robert.smith', 'robertsmith', 'rsmith', 'r.smith', 'smith.robert', 'smithr', 'robert_smith']) expect(at(local)).toBe('exact');
    expect(at('bob.smith')).toBe('nickname');
    expect(at('robert')).toBe('partial');
    expect(at('smith')).toBe('partial');
    expect(at('alice.jones')).toBe('different');
  });
});

describe('compareCompany', () => {
  it('grades the employer: current (suffixes aside), a typo, a previous employer, another', () => {
    expect(compareCompany(companyKey('ACME Corp.'), person(), none).level).toBe('exact');
    expect(compareCompany(companyKey('Acmee'), person(), none).level).toBe('close');
    expect(compareCompany(companyKey('Globex'), person(), none).level).toBe('former');
    expect(compareCompany(companyKey('Initech'), person(), none).level).toBe('different');
    expect(compareCompany('x', person({ current_company: null, current_company_id: null, positions: [] }), none).level).toBe('missing_in_record');
  });

  it('agrees through the lake: a name resolved to the current employer, or to its former name', () => {
    expect(compareCompany('acme old name', person(), { ...none, byName: new Set(['100']) }).level).toBe('exact');
    expect(compareCompany('acme old name', person(), { ...none, byFormerName: new Set(['100']) }).level).toBe('former');
  });
});

describe('compareEmployerIds', () => {
  it('current, previous, another employer', () => {
    expect(compareEmployerIds('company_id', '100', new Set(['100']), person(), '100').level).toBe('exact');
    expect(compareEmployerIds('company_id', '200', new Set(['200']), person(), '100').level).toBe('former');
    expect(compareEmployerIds('company_id', '300', new Set(['300']), person(), '100').level).toBe('different');
  });

  it('a domain the lake has no company for still agrees with an employer of that name', () => {
    expect(compareEmployerIds('company_domain', 'acme.com', new Set(), person(), 'acme').level).toBe('close');
    expect(compareEmployerIds('company_domain', 'initech.com', new Set(), person(), 'acme').level).toBe('different');
  });
});

describe('title, place, school', () => {
  it('titles by their words, abbreviations spelt out', () => {
    expect(compareTitle('VP Sales', person()).level).toBe('exact');
    expect(compareTitle('Vice President, Sales & Marketing', person()).level).toBe('close');
    expect(compareTitle('Software Engineer', person()).level).toBe('different');
    expect(compareTitle('CEO', person({ current_title: null })).level).toBe('missing_in_record');
  });

  it('places: a city, a region, a country name or code; another place', () => {
    const at = (text: string) => comparePlace('location', placeOf(text), personPlace(person())).level;
    expect(at('Austin')).toBe('exact');
    expect(at('Texas')).toBe('exact');
    expect(at('United States')).toBe('exact');
    expect(at('US')).toBe('exact');
    expect(at('USA')).toBe('exact');
    expect(at('Austin, TX')).toBe('exact');
    expect(at('Berlin')).toBe('different');
  });

  it('schools by name key', () => {
    expect(compareSchool(companyKey('University of Texas at Austin'), person()).level).toBe('exact');
    expect(compareSchool(companyKey('Stanford University'), person()).level).toBe('different');
  });
});

describe('comparePerson', () => {
  it('compares every field asked, the employer domain once (company_domain before the email\'s)', () => {
    const q: PersonQuery = {
      name: parseName('Bob Smith'), company: companyKey('Acme'), companyDomain: 'acme.com', companyId: null,
      email: parseEmail('bob.smith@acme.com'), title: null, location: null, school: null,
    };
    const fields = comparePerson(q, person(), { ...none, byDomain: new Set(['100']) }).map((c) => `${c.field}:${c.level}`);
    expect(fields).toEqual(['name:nickname', 'company:exact', 'company_domain:exact', 'email:nickname']);
  });
});
