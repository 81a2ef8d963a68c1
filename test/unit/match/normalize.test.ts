/** Stage 1 of matching: the forms values are compared in (domain/match/normalize.ts). */
import {
  companyKey, firstNameVariants, fold, isNickname, nameKey, parseEmail, parseName, placeOf, registrableDomain, titleWords, webHost,
} from '../../../src/domain/match/normalize';

describe('fold', () => {
  it('removes accents, case and punctuation, and maps the letters unaccent maps', () => {
    expect(fold('José Álvarez-Núñez')).toBe('jose alvarez nunez');
    expect(fold('Ørjan Łukasz Strauß')).toBe('orjan lukasz strauss');
    expect(fold("  O'Brien,  Æsa ")).toBe('o brien aesa');
  });
});

describe('names', () => {
  it('parses a list\'s name forms: "Last, First", titles, suffixes, middle names', () => {
    expect(parseName('Doe, Jane')).toMatchObject({ first: 'jane', last: 'doe' });
    expect(parseName('Dr. Jane Quinn Doe Jr.')).toMatchObject({ first: 'jane', middle: ['quinn'], last: 'doe' });
    expect(parseName('Jane Q. Doe').tokens).toEqual(['jane', 'q', 'doe']);
  });

  it('keys a name by its last word that is not a suffix (the SQL lake_name_key)', () => {
    expect(nameKey('Jane Doe Jr.')).toBe('doe');
    expect(nameKey('Jean-Luc de la Fontaine')).toBe('fontaine');
    expect(nameKey('  ')).toBeNull();
  });

  it('knows nicknames in both directions, and two nicknames of one name', () => {
    expect(isNickname('bob', 'robert')).toBe(true);
    expect(isNickname('robert', 'bob')).toBe(true);
    expect(isNickname('bob', 'rob')).toBe(true);
    expect(isNickname('jane', 'john')).toBe(false);
    expect(isNickname('robert', 'robert')).toBe(false);
    expect(firstNameVariants('william')).toEqual(expect.arrayContaining(['william', 'bill', 'will']));
  });
});

describe('companies', () => {
  it('makes legal suffixes, punctuation and case not matter', () => {
    expect(companyKey('Acme Corp.')).toBe('acme');
    expect(companyKey('ACME Corporation')).toBe('acme');
    expect(companyKey('acme')).toBe('acme');
    expect(companyKey('The Acme Company, Inc.')).toBe('acme');
    expect(companyKey('Smith & Sons Intl GmbH')).toBe('smith sons international');
  });

  it('reads dotted legal forms as one word, and knows Ltda, Pvt and Private Limited', () => {
    expect(companyKey('Deck College S.L.')).toBe('deck college');
    expect(companyKey('deck college sl.')).toBe('deck college');
    expect(companyKey('Société Générale S.A.')).toBe('societe generale');
    expect(companyKey('Santos Infotech Ltda')).toBe('santos infotech');
    expect(companyKey('Dhawan Estates Private Limited')).toBe('dhawan estates');
    expect(companyKey('Overload Networks, Pvt Ltd')).toBe('overload networks');
    // "private" is a legal form only before limited / ltd.
    expect(companyKey('Private Equity Partners')).toBe('private equity partners');
    expect(companyKey('J. P. Morgan & Co.')).toBe('jp morgan');
  });

  it('spells out the abbreviations lists write', () => {
    expect(companyKey('Walker Cons.')).toBe(companyKey('Walker Consulting'));
    expect(companyKey('Hello Ins. GmbH')).toBe('hello insurance');
    expect(companyKey('Shukla Comms')).toBe('shukla communications');
    expect(companyKey('Equal Inv.')).toBe('equal investments');
  });

  it('keeps the words of a name made only of fillers', () => {
    expect(companyKey('The Company')).toBe('the company');
  });
});

describe('domains and emails', () => {
  it('gives the registrable domain of a URL or bare domain, null for what is not a domain', () => {
    expect(registrableDomain('https://www.acme.co.uk/about')).toBe('acme.co.uk');
    expect(registrableDomain('jobs.acme.com')).toBe('acme.com');
    expect(registrableDomain('ACME.COM')).toBe('acme.com');
    for (const bad of ['acme', 'not a domain', '1.2.3.4', 'localhost', '', 'acme.invalidtld']) expect(registrableDomain(bad)).toBeNull();
  });

  it('keeps a website host without www (the SQL lake_web_host)', () => {
    expect(webHost('https://WWW.Acme.co.uk:8080/about?x')).toBe('acme.co.uk');
    expect(webHost('eu.acme.com/')).toBe('eu.acme.com');
  });

  it('splits an email into local part and registrable domain, and knows free mail', () => {
    expect(parseEmail('Jane.Doe+news@mail.Acme.com')).toEqual({ local: 'jane.doe', domain: 'acme.com', freeMail: false });
    expect(parseEmail('bob@gmail.com')).toMatchObject({ freeMail: true });
    expect(parseEmail('bad@')).toBeNull();
    expect(parseEmail('@acme.com')).toBeNull();
    expect(parseEmail('x@nodomain')).toBeNull();
  });
});

describe('titles and places', () => {
  it('spells out title abbreviations and drops fillers', () => {
    expect(titleWords('Sr. VP, Sales & Marketing')).toEqual(['senior', 'vice', 'president', 'sales', 'marketing']);
    expect(titleWords('Head of Engineering')).toEqual(['head', 'engineering']);
  });

  it('reads a country code or alias', () => {
    expect(placeOf('USA').countryCode).toBe('us');
    expect(placeOf('DE').countryCode).toBe('de');
    expect(placeOf('Austin').countryCode).toBeNull();
  });
});
