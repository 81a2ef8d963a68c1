/**
 * What real people lists meet, for the world's names (issue 33, point 8): nicknames in use, middle
 * names and initials, accented names, names many people share, and the legal suffixes companies
 * carry. The tables are the world's own, written by the project (short, common English forms);
 * the matching engine keeps its own nickname table (src/domain/match), so the bench measures the
 * engine against names it was not built from.
 */

/** Formal first name -> the short forms people use for it (each short form may serve several). */
export const NICKNAMES: Readonly<Record<string, readonly string[]>> = {
  Robert: ['Bob', 'Rob', 'Bobby'],
  William: ['Bill', 'Will', 'Billy'],
  Richard: ['Rick', 'Dick', 'Rich'],
  James: ['Jim', 'Jimmy', 'Jamie'],
  John: ['Jack', 'Johnny'],
  Michael: ['Mike', 'Mikey'],
  Thomas: ['Tom', 'Tommy'],
  Joseph: ['Joe', 'Joey'],
  Charles: ['Charlie', 'Chuck'],
  Christopher: ['Chris'],
  Daniel: ['Dan', 'Danny'],
  Matthew: ['Matt'],
  Anthony: ['Tony'],
  Andrew: ['Andy', 'Drew'],
  Edward: ['Ed', 'Eddie', 'Ted'],
  Benjamin: ['Ben'],
  Nicholas: ['Nick'],
  Alexander: ['Alex'],
  Samuel: ['Sam'],
  Jonathan: ['Jon'],
  Timothy: ['Tim'],
  Stephen: ['Steve'],
  Steven: ['Steve'],
  Gregory: ['Greg'],
  Patrick: ['Pat'],
  Peter: ['Pete'],
  Kenneth: ['Ken', 'Kenny'],
  Ronald: ['Ron'],
  Donald: ['Don'],
  Raymond: ['Ray'],
  Lawrence: ['Larry'],
  Frederick: ['Fred'],
  Zachary: ['Zach'],
  Joshua: ['Josh'],
  Jacob: ['Jake'],
  David: ['Dave'],
  Elizabeth: ['Liz', 'Beth', 'Betty'],
  Katherine: ['Kate', 'Katie', 'Kathy'],
  Catherine: ['Cathy', 'Kate'],
  Margaret: ['Maggie', 'Peggy', 'Meg'],
  Jennifer: ['Jen', 'Jenny'],
  Jessica: ['Jess'],
  Rebecca: ['Becky'],
  Susan: ['Sue'],
  Patricia: ['Pat', 'Patty', 'Trish'],
  Deborah: ['Debbie', 'Deb'],
  Victoria: ['Vicky', 'Tori'],
  Christina: ['Tina', 'Chris'],
  Samantha: ['Sam'],
  Alexandra: ['Alex', 'Sasha'],
  Abigail: ['Abby'],
  Kimberly: ['Kim'],
  Pamela: ['Pam'],
  Cynthia: ['Cindy'],
  Barbara: ['Barb'],
  Dorothy: ['Dot'],
  Theodore: ['Theo', 'Ted'],
  Francisco: ['Paco', 'Pancho'],
  Guillermo: ['Memo'],
  Alejandro: ['Alex'],
  Wolfgang: ['Wolf'],
  Johannes: ['Hannes'],
  Friedrich: ['Fritz'],
};

/** Lower-cased short form -> the formal names it stands for. */
export const FORMAL_OF: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const [formal, shorts] of Object.entries(NICKNAMES)) {
    for (const s of shorts) {
      const key = s.toLowerCase();
      map.set(key, [...(map.get(key) ?? []), formal]);
    }
  }
  return map;
})();

/** Names worn by many people, by profile language (several people share each across the world). */
export const COMMON_NAMES: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  en: [['John', 'Smith'], ['Michael', 'Johnson'], ['David', 'Brown'], ['Sarah', 'Williams'], ['Jennifer', 'Jones'], ['James', 'Miller'], ['Robert', 'Davis'], ['Mary', 'Wilson']],
  de: [['Thomas', 'Müller'], ['Michael', 'Schmidt'], ['Anna', 'Schneider'], ['Stefan', 'Fischer'], ['Julia', 'Weber']],
  fr: [['Marie', 'Martin'], ['Jean', 'Bernard'], ['Pierre', 'Dubois'], ['Sophie', 'Thomas'], ['Nicolas', 'Petit']],
  es: [['María', 'García'], ['José', 'Rodríguez'], ['Antonio', 'López'], ['Carmen', 'Martínez'], ['Javier', 'Sánchez']],
  pt: [['Ana', 'Silva'], ['João', 'Santos'], ['Maria', 'Oliveira'], ['Pedro', 'Souza']],
  nl: [['Jan', 'de Jong'], ['Sanne', 'Jansen'], ['Daan', 'de Vries'], ['Emma', 'van den Berg']],
};

/** Accented first and last names that English-language profiles also carry. */
export const ACCENTED_FIRST = ['Zoë', 'Chloé', 'Renée', 'André', 'José', 'Noël', 'René', 'Søren', 'Björn', 'Åsa', 'Łukasz', 'Sébastien', 'François', 'Hélène', 'Jürgen', 'Inés', 'Ramón', 'Mónica'] as const;
export const ACCENTED_LAST = ['Müller', 'Peña', 'Núñez', 'García', 'Dvořák', 'Jørgensen', 'Schäfer', 'Gómez', 'Lefèvre', 'Öztürk', 'Nowák', 'Håkansson', 'Çelik', 'Ibáñez'] as const;

/** Middle names, shown whole or as an initial. */
export const MIDDLE_NAMES = ['Marie', 'Ann', 'Lee', 'James', 'Elizabeth', 'Michael', 'Grace', 'Joseph', 'Rose', 'Alexander', 'Louise', 'Edward'] as const;

/** Legal forms companies write after their name, by country code (the first is the usual one). */
export const LEGAL_SUFFIXES: Readonly<Record<string, readonly string[]>> = {
  US: ['Inc.', 'LLC', 'Corp.', 'Corporation', 'Co.'],
  GB: ['Ltd', 'Limited', 'PLC', 'LLP'],
  IE: ['Ltd', 'Limited', 'DAC'],
  DE: ['GmbH', 'AG', 'GmbH & Co. KG'],
  FR: ['SAS', 'SA', 'SARL'],
  IN: ['Pvt Ltd', 'Private Limited', 'Ltd'],
  CA: ['Inc.', 'Ltd', 'Corp.'],
  AU: ['Pty Ltd', 'Ltd'],
  NL: ['B.V.', 'N.V.'],
  ES: ['S.L.', 'S.A.'],
  SG: ['Pte Ltd', 'Pte. Ltd.'],
  BR: ['Ltda', 'S.A.'],
};

/** Every legal form above, for stripping one (matchQueries adds and removes them as lists do). */
export const ALL_LEGAL_SUFFIXES: readonly string[] = [...new Set(Object.values(LEGAL_SUFFIXES).flat())].sort((a, b) => b.length - a.length);
