/**
 * Person generator. A person's current employer and their place among its employees come from the
 * world's allocation (see index.ts); everything else comes from the person's own stream.
 */
import type { components } from '../../generated/types';

import { inferSeniority } from '../domain/people/seniority';
import { type Feistel, type Rng } from './random';
import {
  ACTIVITIES, BACHELOR_DEGREES, CEO_TITLES, CERTIFIERS_BY_FAMILY, COUNTRIES, COURSES, DOCTORATES, EMPLOYMENT_TYPES,
  FAMILIES, FAMILY_WEIGHTS_BY_INDUSTRY, GENERAL_SKILLS, GRADES, HONOR_TITLES, LANGUAGE_NAMES, LOCATION_TYPES,
  MASTER_DEGREES, PROFICIENCIES, PUBLISHERS, SHORT_PROGRAMS, VOLUNTEER_ORGS, VOLUNTEER_ROLES, titlesFor,
  type City, type Country, type JobFamily,
} from './tables';
import { COUNTRY_CUMULATIVE } from './companies';
import { ACCENTED_FIRST, ACCENTED_LAST, COMMON_NAMES, MIDDLE_NAMES, NICKNAMES } from './names';
import {
  hex, isoSeconds, mediaUrl, monthOf, renditions, slugify, uuidFrom, yearOf, type CompanySummary, type Stream, type WorldContext,
} from './support';

export type PersonResult = components['schemas']['PersonResult'];
type Position = components['schemas']['Position'];
type Education = components['schemas']['Education'];
type Skill = components['schemas']['Skill'];

export interface PersonKeys {
  readonly stream: number;
  readonly uuid: Feistel; // 32 bits
  readonly username: Feistel; // 24 bits
  readonly networkId: Feistel; // 32 bits
  readonly urn: Feistel; // 32 bits
  /** Key of the name's realism (namesakes, nicknames, middle names, accents): a stream apart. */
  readonly alias: number;
}

const DAY_MS = 86_400_000;
const URN = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Fixed-width base64url of a 32-bit value (6 characters). */
function urn32(value: number): string {
  let s = '';
  for (let k = 0; k < 6; k++) {
    s = URN[value % 64] + s;
    value = Math.floor(value / 64);
  }
  return s;
}

/**
 * Seniority tier (0 individual, 1 manager, 2 director, 3 vp, 4 c-level) of the employee at `rank`
 * among `employees`. In companies with 20 or more world employees the first ranks are the decision
 * makers (rank 0 is the chief executive), so every such company has some; smaller ones draw.
 */
function tierOf(rng: Rng, rank: number, employees: number): number {
  if (employees >= 20) {
    const c = Math.min(10, Math.max(1, Math.round(employees * 0.008)));
    const v = Math.max(1, Math.round(employees * 0.015));
    const d = Math.max(1, Math.round(employees * 0.04));
    const m = Math.round(employees * 0.11);
    if (rank < c) return 4;
    if (rank < c + v) return 3;
    if (rank < c + v + d) return 2;
    if (rank < c + v + d + m) return 1;
    return 0;
  }
  if (rank === 0 && employees >= 3 && rng.chance(0.5)) return 4;
  const u = rng.next();
  return u < 0.025 ? 4 : u < 0.05 ? 3 : u < 0.1 ? 2 : u < 0.22 ? 1 : 0;
}

function familyFor(rng: Rng, industryIndex: number): JobFamily {
  return FAMILIES[rng.weighted(FAMILY_WEIGHTS_BY_INDUSTRY[industryIndex] as Float64Array)] as JobFamily;
}

function place(city: City, country: Country): string {
  return city.region === null || city.region === city.name ? `${city.name}, ${country.name}` : `${city.name}, ${city.region}, ${country.name}`;
}

function describe(rng: Rng, family: JobFamily, tier: number, company: string): string | null {
  if (rng.chance(0.78)) return null;
  const a = rng.pick(family.skills);
  const b = rng.pick(family.topics);
  return tier >= 1
    ? `Lead a team of ${rng.range(3, 40)} working on ${b} at ${company}. Responsible for ${a} and hiring.`
    : `Work on ${b}, mostly ${a}. ${rng.pick(['Shipped', 'Delivered', 'Improved', 'Owned'])} ${rng.pick(['core', 'customer-facing', 'internal', 'regional'])} ${rng.pick(['projects', 'programs', 'processes', 'systems'])} end to end.`;
}

/** The general skills that are not already among a family's own. */
const GENERAL_SKILLS_BY_FAMILY = new Map(FAMILIES.map((f) => [f, GENERAL_SKILLS.filter((s) => !f.skills.includes(s))]));

/** `count` distinct items of `items` (a partial Fisher-Yates shuffle of their indexes). */
function sample<T>(rng: Rng, items: readonly T[], count: number): T[] {
  const order = items.map((_, k) => k);
  const out: T[] = [];
  for (let k = 0; k < count && k < order.length; k++) {
    const j = k + rng.int(order.length - k);
    const pick = order[j] as number;
    order[j] = order[k] as number;
    out.push(items[pick] as T);
  }
  return out;
}

/** Number of past positions: mostly 1-4, a few with none or five. */
const PAST_COUNT_CUMULATIVE = [8, 32, 62, 84, 95, 100];

/** Share of persons wearing a common name, an accented first / last name, a nickname, a middle name or initial. */
const COMMON_NAME = 0.012;
const ACCENTED = 0.03;
const NICKNAME_IN_USE = 0.35;
const FORMAL_NAME = 0.08;
/** The English formal names of the nickname table (the last few are Spanish and German). */
const ENGLISH_FORMAL = Object.keys(NICKNAMES).filter((n) => !['Francisco', 'Guillermo', 'Alejandro', 'Wolfgang', 'Johannes', 'Friedrich'].includes(n));
const MIDDLE_INITIAL = 0.06;
const MIDDLE_NAME = 0.03;

/** Whether the person at `rank` among `employees` shares the company's namesake name (WorldContext.namesakeName). */
export function isNamesakeRank(rank: number, employees: number): boolean {
  return employees >= 12 && rank >= employees - 2;
}

/**
 * The name the profile shows, from the faker-drawn one and the person's own alias stream (`alias`,
 * keyed apart, so no other draw of the person changed): namesakes at the same company, common names,
 * accents, a nickname in use instead of the formal name, a middle name or initial (in first_name, as
 * people type it into the network's first-name field).
 */
function profileName(
  ctx: WorldContext, alias: Rng, language: string, drawn: { first: string; last: string }, at: { company: number; rank: number; employees: number },
): { first: string; last: string } {
  let { first, last } = drawn;
  const common = COMMON_NAMES[language];
  if (isNamesakeRank(at.rank, at.employees)) ({ first, last } = ctx.namesakeName(at.company));
  else if (common !== undefined && alias.chance(COMMON_NAME)) [first, last] = alias.pick(common);
  else if (language === 'en') {
    // Faker's long list of first names rarely draws the few formal names that have short forms.
    if (alias.chance(FORMAL_NAME)) first = alias.pick(ENGLISH_FORMAL);
    if (alias.chance(ACCENTED)) first = alias.pick(ACCENTED_FIRST);
    if (alias.chance(ACCENTED)) last = alias.pick(ACCENTED_LAST);
  }
  const nicknames = NICKNAMES[first];
  if (nicknames !== undefined && alias.chance(NICKNAME_IN_USE)) first = alias.pick(nicknames);
  const u = alias.next();
  if (u < MIDDLE_INITIAL) first = `${first} ${alias.pick(MIDDLE_NAMES).charAt(0)}.`;
  else if (u < MIDDLE_INITIAL + MIDDLE_NAME) first = `${first} ${alias.pick(MIDDLE_NAMES)}`;
  return { first, last };
}

export function generatePerson(ctx: WorldContext, stream: Stream, alias: Rng, keys: PersonKeys, index: number): PersonResult {
  const { company: companyIndex, rank, employees } = ctx.placement(index);
  const employer = ctx.companySummary(companyIndex);
  const { rng } = stream;
  rng.reset(keys.stream, index);

  // Who: country, city, name, identifiers.
  const country = rng.chance(0.75) ? employer.country : (COUNTRIES[rng.weighted(COUNTRY_CUMULATIVE)] as Country);
  const city = country === employer.country && rng.chance(0.5) ? employer.city : rng.pick(country.cities);
  const nameCountry = rng.chance(0.85) ? country : (COUNTRIES[rng.weighted(COUNTRY_CUMULATIVE)] as Country);
  const nf = stream.faker(nameCountry.locale);
  alias.reset(keys.alias, index);
  const { first: firstName, last: lastName } = profileName(
    ctx, alias, nameCountry.language, { first: nf.person.firstName(), last: nf.person.lastName() }, { company: companyIndex, rank, employees },
  );
  const fullName = `${firstName} ${lastName}`;
  const username = `${slugify(`${firstName} ${lastName}`).slice(0, 80).replace(/-+$/, '') || 'member'}-${hex(keys.username.apply(index), 6)}`;
  const id = uuidFrom(rng, keys.uuid.apply(index), 8 + rng.int(2));

  // What: tier, family, title.
  const tier = tierOf(rng, rank, employees);
  const family = familyFor(rng, employer.industryIndex);
  const title = tier === 4 && rank === 0 && employees >= 3 ? rng.pick(CEO_TITLES) : rng.pick(titlesFor(family, tier));
  const seniority = inferSeniority(title);

  // When: career start, current start (about 10% within the last six months), history backwards.
  const careerYears = tier === 0 ? 1 + Math.floor(24 * Math.pow(rng.next(), 1.6)) : rng.range(4 + 3 * tier, 20 + 4 * tier);
  const careerStart = ctx.asOfMonth - careerYears * 12 - rng.int(12);
  const recent = rng.chance(0.1);
  let currentStart: number;
  if (recent) currentStart = ctx.asOfMonth - rng.int(6);
  else currentStart = ctx.asOfMonth - Math.min(ctx.asOfMonth - careerStart, 6 + Math.floor(-Math.log(1 - rng.next()) * 36));
  if (currentStart < careerStart && !recent) currentStart = careerStart;

  const currentLocation = place(city, country);
  const positions: Position[] = [
    {
      title,
      companyName: employer.name,
      companyId: employer.companyId,
      companyUsername: employer.username,
      companyIndustry: employer.industry,
      location: currentLocation,
      companyURL: employer.networkUrl,
      companyLogo: employer.logoUrl,
      companyStaffCountRange: employer.staffRange,
      locationType: rng.chance(0.4) ? rng.pick(LOCATION_TYPES) : null,
      employmentType: rng.chance(0.65) ? rng.pick(EMPLOYMENT_TYPES) : null,
      isCurrent: true,
      startYear: yearOf(currentStart),
      startMonth: monthOf(currentStart),
      endYear: null,
      endMonth: null,
      description: describe(rng, family, tier, employer.name),
    },
  ];
  const pastWanted = rng.weighted(PAST_COUNT_CUMULATIVE);
  const employers: CompanySummary[] = [employer];
  const pastCompanies: string[] = [];
  let cursor = currentStart;
  let pastTier = tier;
  for (let k = 0; k < pastWanted; k++) {
    const end = cursor - rng.range(1, 4);
    if (end < careerStart + 3) break;
    const start = Math.max(careerStart, end - rng.range(5, 48));
    let other: CompanySummary | null = null;
    for (let attempt = 0; attempt < 4 && other === null; attempt++) {
      const candidate = ctx.companySummary(ctx.randomCompany(rng));
      if (!employers.includes(candidate)) other = candidate;
    }
    if (other === null) break;
    employers.push(other);
    pastTier = Math.max(0, pastTier - (rng.chance(0.55) ? 1 : 0));
    const pastFamily = rng.chance(0.8) ? family : familyFor(rng, other.industryIndex);
    const pastTitle = rng.pick(titlesFor(pastFamily, Math.min(pastTier, 3)));
    // A position that ended before its company's rename keeps the name it had then, as profiles do.
    const nameThen = other.formerName !== null && end < (other.renamedMonth as number) ? other.formerName : other.name;
    positions.push({
      title: pastTitle,
      companyName: nameThen,
      companyId: other.companyId,
      companyUsername: other.username,
      companyIndustry: other.industry,
      location: rng.chance(0.6) ? currentLocation : place(other.city, other.country),
      companyURL: other.networkUrl,
      companyLogo: other.logoUrl,
      companyStaffCountRange: other.staffRange,
      locationType: rng.chance(0.25) ? rng.pick(LOCATION_TYPES) : null,
      employmentType: rng.chance(0.6) ? rng.pick(EMPLOYMENT_TYPES) : null,
      isCurrent: false,
      startYear: yearOf(start),
      startMonth: monthOf(start),
      endYear: yearOf(end),
      endMonth: monthOf(end),
      description: describe(rng, pastFamily, pastTier, other.name),
    });
    if (!pastCompanies.includes(nameThen)) pastCompanies.push(nameThen);
    cursor = start;
  }

  // Education: a first degree ending as the career starts, sometimes a second, rarely a third.
  const educations: Education[] = [];
  const firstEnd = yearOf(careerStart) - (rng.chance(0.7) ? 0 : 1);
  const firstSchool = ctx.randomSchool(rng, country);
  const entries: { school: typeof firstSchool; degree: string; start: number; end: number }[] = [
    { school: firstSchool, degree: rng.pick(BACHELOR_DEGREES), start: firstEnd - (rng.chance(0.6) ? 4 : 3), end: firstEnd },
  ];
  if (rng.chance(0.25 + 0.06 * tier)) {
    const doctorate = family.key === 'academic' || family.key === 'research' || family.key === 'clinical' ? rng.chance(0.4) : rng.chance(0.05);
    const start = Math.min(ctx.asOfYear - 2, firstEnd + rng.int(6));
    const end = Math.min(ctx.asOfYear, start + (doctorate ? rng.range(4, 6) : rng.range(1, 2)));
    entries.unshift({ school: ctx.randomSchool(rng, country), degree: doctorate ? rng.pick(DOCTORATES) : rng.pick(MASTER_DEGREES), start, end });
  }
  if (rng.chance(0.08)) {
    const start = Math.min(ctx.asOfYear, firstEnd - rng.range(0, 2));
    entries.push({ school: ctx.randomSchool(rng, country), degree: rng.pick(SHORT_PROGRAMS), start, end: start });
  }
  for (const e of entries) {
    const months = rng.chance(0.5);
    educations.push({
      schoolName: e.school.name,
      schoolId: e.school.schoolId,
      degree: rng.chance(0.9) ? e.degree : null,
      fieldOfStudy: rng.chance(0.9) ? rng.pick(family.fields) : null,
      grade: rng.chance(0.15) ? rng.pick(GRADES) : null,
      activities: rng.chance(0.2) ? `${rng.pick(ACTIVITIES)}; ${rng.pick(ACTIVITIES)}` : null,
      description: rng.chance(0.08) ? `Focus on ${rng.pick(family.topics)}.` : null,
      url: e.school.url,
      startYear: e.start,
      startMonth: months ? 9 : null,
      endYear: e.end,
      endMonth: months ? rng.range(5, 7) : null,
      logo: e.school.logo,
    });
  }

  // Skills, sorted by endorsements (the preview shows the top ones).
  const skillCount = Math.min(25, 3 + Math.floor(23 * Math.pow(rng.next(), 4.5)));
  const fromFamily = Math.min(family.skills.length, Math.round(skillCount * 0.72));
  const skillNames = [...sample(rng, family.skills, fromFamily), ...sample(rng, GENERAL_SKILLS_BY_FAMILY.get(family) as string[], skillCount - fromFamily)];
  const skills: Skill[] = skillNames
    .map((name) => ({ name, endorsementsCount: Math.floor(Math.pow(rng.next(), 3) * (20 + careerYears * 6)), passedSkillAssessment: rng.chance(0.08) }))
    .sort((a, b) => b.endorsementsCount - a.endorsementsCount);

  // Certifications.
  const certifiers = CERTIFIERS_BY_FAMILY[family.key] ?? [];
  const certifications = [];
  const certCount = rng.chance(0.6) || certifiers.length === 0 ? 0 : rng.range(1, 3);
  const usedCerts: string[] = [];
  for (let k = 0; k < certCount; k++) {
    const issuer = rng.pick(certifiers);
    const name = rng.pick(issuer.certs);
    if (usedCerts.includes(name)) continue;
    usedCerts.push(name);
    const issued = rng.range(Math.max(careerStart, ctx.asOfMonth - 120), ctx.asOfMonth);
    const start = { year: yearOf(issued), month: rng.chance(0.8) ? monthOf(issued) : 0, day: 0 };
    const end = issuer.validYears > 0 ? { year: start.year + issuer.validYears, month: start.month, day: 0 } : { year: 0, month: 0, day: 0 };
    certifications.push({
      name,
      authority: rng.chance(0.9) ? issuer.name : null,
      company: { name: issuer.name, universalName: issuer.universalName },
      companyId: null,
      credentialId: null,
      credentialUrl: null,
      start,
      end,
      timePeriod: issuer.validYears > 0 && rng.chance(0.6) ? { start: { ...start }, end: { ...end } } : null,
    });
  }

  // Rarer sections.
  const honors = rng.chance(0.12)
    ? Array.from({ length: rng.range(1, 2) }, () => {
        const on = rng.range(careerStart - 24, ctx.asOfMonth);
        return {
          title: rng.pick(HONOR_TITLES),
          issuer: rng.chance(0.6) ? rng.pick(employers).name : firstSchool.name,
          issuerLogo: null,
          issuedOn: { year: yearOf(on), month: rng.chance(0.7) ? monthOf(on) : 0, day: 0 },
          description: rng.chance(0.4) ? `For outstanding work on ${rng.pick(family.topics)}.` : null,
        };
      })
    : [];
  const publications = rng.chance(0.06)
    ? Array.from({ length: rng.range(1, 3) }, () => {
        const on = rng.range(careerStart, ctx.asOfMonth);
        const topic = rng.pick(family.topics);
        return {
          name: `${rng.pick(['Lessons from', 'Notes on', 'Rethinking', 'A practical guide to'])} ${topic}`,
          publisher: rng.pick(PUBLISHERS),
          url: rng.chance(0.6) ? `https://www.example.org/articles/${slugify(topic)}-${rng.range(1000, 9999)}` : null,
          publishedOn: { year: yearOf(on), month: monthOf(on), day: rng.chance(0.5) ? rng.range(1, 28) : 0 },
        };
      })
    : [];
  const volunteering = rng.chance(0.18)
    ? Array.from({ length: rng.range(1, 2) }, () => {
        const org = rng.pick(VOLUNTEER_ORGS);
        const s = rng.range(careerStart - 24, ctx.asOfMonth - 1);
        const ongoing = rng.chance(0.4);
        const e = ongoing ? 0 : rng.range(s, ctx.asOfMonth);
        return {
          title: rng.pick(VOLUNTEER_ROLES),
          company: org.name,
          companyId: org.id,
          companyUrl: org.username === null ? null : `https://www.linkedin.com/company/${org.username}/`,
          companyLogo: null,
          description: rng.chance(0.4) ? `Volunteering with ${org.name} in ${city.name}.` : null,
          start: { year: yearOf(s), month: monthOf(s), day: 0 },
          end: ongoing ? { year: 0, month: 0, day: 0 } : { year: yearOf(e), month: monthOf(e), day: 0 },
        };
      })
    : [];
  let languages: { name: string; proficiency: string }[] | null = null;
  if (rng.chance(0.72)) {
    const native = LANGUAGE_NAMES[country.language] as string;
    languages = [{ name: native, proficiency: rng.chance(0.8) ? 'NATIVE_OR_BILINGUAL' : '' }];
    if (native !== 'English') languages.push({ name: 'English', proficiency: rng.pick(PROFICIENCIES.slice(1)) });
    if (rng.chance(0.45)) {
      const extra = rng.pick(country.extraLanguages);
      if (!languages.some((l) => l.name === extra)) languages.push({ name: extra, proficiency: rng.pick(PROFICIENCIES) });
    }
  }
  const featured = rng.chance(0.08)
    ? [{
        title: `${rng.pick(['Talk', 'Interview', 'Article'])}: ${rng.pick(family.topics)} at ${employer.name}`,
        url: `https://www.youtube.com/watch?v=${rng.token(URN, 11)}`,
        providerName: rng.chance(0.8) ? 'YouTube' : null,
        previewImage: rng.chance(0.7) ? `https://i.ytimg.com/vi/${rng.token(URN, 11)}/hqdefault.jpg` : null,
      }]
    : null;
  const courses = rng.chance(0.12)
    ? Array.from({ length: rng.range(1, 4) }, () => ({ name: rng.pick(COURSES), number: rng.chance(0.4) ? `${rng.pick(['CS', 'ECON', 'MGMT', 'STAT'])} ${rng.range(100, 499)}` : null }))
    : null;
  const projects = rng.chance(0.06)
    ? { items: [{ title: `${rng.pick(['Open-source', 'Internal', 'Community', 'Pilot'])} ${rng.pick(family.topics)} project`, startedOn: { year: yearOf(currentStart), month: monthOf(currentStart) } }] }
    : null;

  // Signals: null unless set, as on real profiles.
  const isOpenToWork = rng.chance(tier === 0 ? 0.13 : 0.04) ? true : null;
  const isHiring = rng.chance(tier >= 1 ? 0.22 : family.key === 'people' ? 0.2 : 0.015) ? true : null;

  const topics = family.topics;
  const headline = rng.chance(0.05) ? null
    : `${title} at ${employer.name}${rng.chance(0.5) ? ` | ${rng.pick(topics)}, ${skills[0]?.name ?? rng.pick(family.skills)}` : ''}`;
  const past = pastCompanies.length > 0 ? ` Before that I worked at ${pastCompanies.slice(0, 2).join(' and ')}.` : '';
  const summary = rng.chance(0.35) ? null
    : `${careerYears}+ years in ${rng.pick(topics)}. At ${employer.name} I ${tier >= 1 ? 'lead' : 'work on'} ${rng.pick(topics)} and ${skills[1]?.name ?? rng.pick(family.skills)}.${past}`;
  const pictureTs = ctx.asOfMs - rng.range(10, 2500) * DAY_MS - rng.int(DAY_MS);
  const localeEnglish = rng.chance(0.1);

  return {
    id,
    full_name: fullName,
    first_name: firstName,
    last_name: lastName,
    username,
    current_title: title,
    current_company: employer.name,
    current_company_id: employer.companyId,
    current_company_username: employer.username,
    current_company_industry: employer.industry,
    current_company_staff_range: employer.staffRange,
    seniority,
    education_schools: educations.map((e) => e.schoolName),
    past_companies: pastCompanies,
    headline,
    summary,
    geo_city: city.name,
    geo_country: country.name,
    geo_country_code: country.code,
    network_url: `https://www.linkedin.com/in/${username}/`,
    profile_picture_url: rng.chance(0.8) ? mediaUrl(rng, 'profile-displayphoto-shrink_800_800', pictureTs) : null,
    is_premium: rng.chance(0.15),
    is_top_voice: rng.chance(0.005),
    is_creator: rng.chance(0.03),
    fetched_at: isoSeconds(ctx.asOfMs - rng.int(30 * 86_400 + 1) * 1000),
    skills_count: skills.length,
    certifications_count: certifications.length,
    positions_count: positions.length,
    educations_count: educations.length,
    skills_preview: skills.slice(0, 3).map((s) => s.name),
    positions,
    educations,
    skills,
    certifications,
    honors,
    publications,
    volunteering,
    languages,
    featured,
    courses,
    is_open_to_work: isOpenToWork,
    is_hiring: isHiring,
    network_id: String(100_000_000 + keys.networkId.apply(index)),
    network_urn: `ACoAA${urn32(keys.urn.apply(index))}${rng.token(URN, 28)}`,
    background_image_url: rng.chance(0.3)
      ? renditions(rng, (w, h) => `profile-displaybackgroundimage-shrink_${h}_${w}`, [[1400, 350], [800, 200]], pictureTs + rng.int(DAY_MS))
      : null,
    primary_locale_country: localeEnglish ? 'US' : country.code,
    primary_locale_language: localeEnglish ? 'en' : country.language,
    projects,
  };
}
