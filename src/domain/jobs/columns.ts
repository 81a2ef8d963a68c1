/**
 * Which input column feeds which match field: the header recognition and the explicit mapping of a
 * list job (issue 34, point 2). Pure: the upload (upload.ts) asks it once, with the header row.
 *
 * A header is folded before it is compared (case, accents, and every run of spaces, `_`, `-`, `.`
 * and `/` to one space), so `First Name`, `first_name`, `FIRST-NAME` and `Prénom`'s plain cousins
 * meet one spelling. `city`, `region`/`state` and `country` are joined (in that order) into the
 * match's free-text `location` when no `location` column exists.
 */
export const JOB_FIELDS = [
  'network_url',
  'username',
  'id',
  'name',
  'first_name',
  'last_name',
  'company',
  'company_domain',
  'email',
  'title',
  'location',
  'city',
  'region',
  'country',
  'school',
] as const;
export type JobField = (typeof JOB_FIELDS)[number];

/** Field -> the column index (0-based) it is read from. */
export type ColumnMapping = Partial<Record<JobField, number>>;

/** The usual spellings of each field, folded (see `foldHeader`). */
const SPELLINGS: Record<JobField, readonly string[]> = {
  network_url: ['network url', 'profile url', 'profile', 'linkedin', 'linkedin url', 'linkedin profile', 'linkedin profile url', 'person linkedin url', 'url', 'li url'],
  username: ['username', 'slug', 'handle', 'public identifier', 'linkedin username', 'linkedin slug', 'profile slug'],
  id: ['id', 'person id', 'record id', 'enrich id'],
  name: ['name', 'full name', 'fullname', 'contact name', 'person name', 'contact'],
  first_name: ['first name', 'firstname', 'first', 'given name', 'forename'],
  last_name: ['last name', 'lastname', 'last', 'surname', 'family name'],
  company: ['company', 'company name', 'companyname', 'employer', 'organization', 'organisation', 'account', 'account name', 'current company'],
  company_domain: ['company domain', 'domain', 'website', 'company website', 'web site', 'company url', 'website url', 'homepage'],
  email: ['email', 'e mail', 'email address', 'e mail address', 'work email', 'business email', 'mail'],
  title: ['title', 'job title', 'jobtitle', 'position', 'role', 'headline'],
  location: ['location', 'address', 'person location'],
  city: ['city', 'town'],
  region: ['region', 'state', 'province', 'county'],
  country: ['country', 'country code', 'country name'],
  school: ['school', 'university', 'college', 'education'],
};

const BY_SPELLING = new Map<string, JobField>(
  (Object.entries(SPELLINGS) as [JobField, readonly string[]][]).flatMap(([field, names]) => names.map((n) => [n, field] as const)),
);

export function foldHeader(header: string): string {
  return header
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[\s_\-./]+/g, ' ')
    .trim();
}

/** The field a header names, or null. */
export const fieldOfHeader = (header: string): JobField | null => BY_SPELLING.get(foldHeader(header)) ?? null;

/** Fields that can find someone alone (an identifier, or an email) or with a name. */
const IDENTIFIERS: readonly JobField[] = ['network_url', 'username', 'id'];
const WITH_A_NAME: readonly JobField[] = ['company', 'company_domain', 'email', 'title', 'location', 'city', 'region', 'country', 'school'];

/** Whether a mapping can identify or match anyone (the rule of MATCH_INPUT_INSUFFICIENT, by columns). */
export function mappingIsUsable(m: ColumnMapping): boolean {
  if (IDENTIFIERS.some((f) => m[f] !== undefined) || m.email !== undefined) return true;
  const named = m.name !== undefined || (m.first_name !== undefined && m.last_name !== undefined);
  return named && WITH_A_NAME.some((f) => m[f] !== undefined);
}

export class MappingError extends Error {}

/**
 * The mapping of a header: recognised headers first (the first column of a field wins), then the
 * explicit mapping (field -> header text) over them. An explicit mapping naming an unknown field or
 * a header that is not in the file is refused (MappingError: the upload answers 400).
 */
export function mapColumns(headers: readonly string[], explicit: Readonly<Record<string, string>> = {}): ColumnMapping {
  const mapping: ColumnMapping = {};
  headers.forEach((h, i) => {
    const field = fieldOfHeader(h);
    if (field && mapping[field] === undefined) mapping[field] = i;
  });
  for (const [field, header] of Object.entries(explicit)) {
    if (!(JOB_FIELDS as readonly string[]).includes(field)) {
      throw new MappingError(`mapping: unknown field "${field.slice(0, 50)}"; fields are ${JOB_FIELDS.join(', ')}`);
    }
    let index = headers.indexOf(header);
    if (index < 0) index = headers.findIndex((h) => foldHeader(h) === foldHeader(header));
    if (index < 0) throw new MappingError(`mapping: ${field} names the column "${header.slice(0, 100)}", which the file does not have`);
    // A column mapped explicitly feeds only the field it was given to.
    for (const f of JOB_FIELDS) if (mapping[f] === index) delete mapping[f];
    mapping[field as JobField] = index;
  }
  return mapping;
}

/** The message of the 400 for an upload no column of which can identify or match anyone. */
export function unusableColumnsMessage(headers: readonly string[]): string {
  const seen = headers.map((h) => JSON.stringify(h.slice(0, 60))).slice(0, 50).join(', ') || 'none';
  return (
    `No column can identify or match anyone. Columns seen: ${seen}. ` +
    `Understood: a profile URL (network_url, profile_url, linkedin), a slug (username, slug) or id; or an email; ` +
    `or a name (name, or first_name and last_name) with one of company, company_domain (domain, website), title, location (city, country), school. ` +
    `Rename the headers or send a mapping.`
  );
}

/** The match request of one row (trimmed values; empty cells left out). */
export function rowQuery(values: readonly string[], m: ColumnMapping): Record<string, string> {
  const get = (f: JobField) => {
    const i = m[f];
    if (i === undefined) return undefined;
    const v = values[i]?.trim();
    return v ? v : undefined;
  };
  const q: Record<string, string> = {};
  for (const f of ['network_url', 'username', 'id', 'name', 'first_name', 'last_name', 'company', 'company_domain', 'email', 'title', 'school'] as const) {
    const v = get(f);
    if (v !== undefined) q[f] = v;
  }
  const location = get('location') ?? ([get('city'), get('region'), get('country')].filter(Boolean).join(', ') || undefined);
  if (location) q.location = location;
  return q;
}
