/**
 * Fixed reference tables of the synthetic world: countries and cities, industries, headcount
 * bands, job families with titles per seniority band, skills, certifications, degrees, languages.
 * Changing any table changes the generated world (and so the bytes a given seed produces).
 */
import { de, en, en_AU, en_CA, en_GB, en_IN, es, fr, nl, pt_BR, type LocaleDefinition } from '@faker-js/faker';

import type { SeniorityBand } from '../domain/people/seniority';

// ---------------------------------------------------------------------------------------------
// Countries

export interface City {
  readonly name: string;
  /** State, province or region (null where the country has none, as in Singapore). */
  readonly region: string | null;
}

export interface Country {
  readonly code: string;
  readonly name: string;
  /** ISO 639-1 language of the usual profile locale. */
  readonly language: string;
  readonly locale: LocaleDefinition;
  readonly phone: string;
  /** Postal code pattern: # digit, ? upper-case letter. */
  readonly postal: string;
  readonly tld: string;
  /** Relative share of people and headquarters. */
  readonly weight: number;
  readonly cities: readonly City[];
  /** Extra languages commonly listed by people of the country (besides English and the locale's). */
  readonly extraLanguages: readonly string[];
}

const c = (name: string, region: string | null): City => ({ name, region });

export const COUNTRIES: readonly Country[] = [
  {
    code: 'US', name: 'United States', language: 'en', locale: en, phone: '+1', postal: '#####', tld: 'com', weight: 38,
    cities: [
      c('New York', 'New York'), c('San Francisco', 'California'), c('Austin', 'Texas'), c('Seattle', 'Washington'),
      c('Chicago', 'Illinois'), c('Boston', 'Massachusetts'), c('Los Angeles', 'California'), c('Atlanta', 'Georgia'),
      c('Denver', 'Colorado'), c('Miami', 'Florida'), c('Dallas', 'Texas'), c('Washington', 'District of Columbia'),
    ],
    extraLanguages: ['Spanish', 'Mandarin', 'French'],
  },
  {
    code: 'GB', name: 'United Kingdom', language: 'en', locale: en_GB, phone: '+44', postal: '??# #??', tld: 'co.uk', weight: 8,
    cities: [c('London', 'England'), c('Manchester', 'England'), c('Edinburgh', 'Scotland'), c('Bristol', 'England'), c('Birmingham', 'England'), c('Cambridge', 'England')],
    extraLanguages: ['French', 'German', 'Spanish'],
  },
  {
    code: 'DE', name: 'Germany', language: 'de', locale: de, phone: '+49', postal: '#####', tld: 'de', weight: 6,
    cities: [c('Berlin', 'Berlin'), c('Munich', 'Bavaria'), c('Hamburg', 'Hamburg'), c('Frankfurt am Main', 'Hesse'), c('Cologne', 'North Rhine-Westphalia'), c('Stuttgart', 'Baden-Württemberg')],
    extraLanguages: ['French', 'Spanish', 'Turkish'],
  },
  {
    code: 'FR', name: 'France', language: 'fr', locale: fr, phone: '+33', postal: '#####', tld: 'fr', weight: 5,
    cities: [c('Paris', 'Île-de-France'), c('Lyon', 'Auvergne-Rhône-Alpes'), c('Toulouse', 'Occitanie'), c('Marseille', "Provence-Alpes-Côte d'Azur"), c('Nantes', 'Pays de la Loire'), c('Lille', 'Hauts-de-France')],
    extraLanguages: ['Spanish', 'German', 'Italian'],
  },
  {
    code: 'IN', name: 'India', language: 'en', locale: en_IN, phone: '+91', postal: '######', tld: 'in', weight: 12,
    cities: [c('Bengaluru', 'Karnataka'), c('Mumbai', 'Maharashtra'), c('Hyderabad', 'Telangana'), c('Pune', 'Maharashtra'), c('Chennai', 'Tamil Nadu'), c('New Delhi', 'Delhi'), c('Gurugram', 'Haryana')],
    extraLanguages: ['Hindi', 'Tamil', 'Telugu', 'Kannada', 'Marathi'],
  },
  {
    code: 'CA', name: 'Canada', language: 'en', locale: en_CA, phone: '+1', postal: '?#? #?#', tld: 'ca', weight: 5,
    cities: [c('Toronto', 'Ontario'), c('Vancouver', 'British Columbia'), c('Montreal', 'Quebec'), c('Ottawa', 'Ontario'), c('Calgary', 'Alberta')],
    extraLanguages: ['French', 'Mandarin', 'Punjabi'],
  },
  {
    code: 'AU', name: 'Australia', language: 'en', locale: en_AU, phone: '+61', postal: '####', tld: 'com.au', weight: 3,
    cities: [c('Sydney', 'New South Wales'), c('Melbourne', 'Victoria'), c('Brisbane', 'Queensland'), c('Perth', 'Western Australia')],
    extraLanguages: ['Mandarin', 'Italian', 'Greek'],
  },
  {
    code: 'NL', name: 'Netherlands', language: 'nl', locale: nl, phone: '+31', postal: '#### ??', tld: 'nl', weight: 3,
    cities: [c('Amsterdam', 'North Holland'), c('Rotterdam', 'South Holland'), c('Utrecht', 'Utrecht'), c('Eindhoven', 'North Brabant')],
    extraLanguages: ['German', 'French'],
  },
  {
    code: 'ES', name: 'Spain', language: 'es', locale: es, phone: '+34', postal: '#####', tld: 'es', weight: 3,
    cities: [c('Madrid', 'Community of Madrid'), c('Barcelona', 'Catalonia'), c('Valencia', 'Valencian Community'), c('Seville', 'Andalusia')],
    extraLanguages: ['Catalan', 'French', 'Portuguese'],
  },
  {
    code: 'SG', name: 'Singapore', language: 'en', locale: en, phone: '+65', postal: '######', tld: 'sg', weight: 2,
    cities: [c('Singapore', null)],
    extraLanguages: ['Mandarin', 'Malay', 'Tamil'],
  },
  {
    code: 'BR', name: 'Brazil', language: 'pt', locale: pt_BR, phone: '+55', postal: '#####-###', tld: 'com.br', weight: 4,
    cities: [c('São Paulo', 'São Paulo'), c('Rio de Janeiro', 'Rio de Janeiro'), c('Belo Horizonte', 'Minas Gerais'), c('Curitiba', 'Paraná'), c('Porto Alegre', 'Rio Grande do Sul')],
    extraLanguages: ['Spanish', 'Italian'],
  },
  {
    code: 'IE', name: 'Ireland', language: 'en', locale: en_GB, phone: '+353', postal: 'D## ?#?#', tld: 'ie', weight: 2,
    cities: [c('Dublin', 'County Dublin'), c('Cork', 'County Cork'), c('Galway', 'County Galway')],
    extraLanguages: ['Irish', 'French'],
  },
];

export const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  en: 'English', de: 'German', fr: 'French', es: 'Spanish', nl: 'Dutch', pt: 'Portuguese',
};

export const PROFICIENCIES = ['NATIVE_OR_BILINGUAL', 'FULL_PROFESSIONAL', 'PROFESSIONAL_WORKING', 'LIMITED_WORKING', 'ELEMENTARY', ''] as const;

// ---------------------------------------------------------------------------------------------
// Industries and headcount bands

/** The industry names the specification lists (search filters match them exactly). */
export const INDUSTRIES = [
  'Computer Software',
  'Information Technology & Services',
  'Financial Services',
  'Hospital & Health Care',
  'Higher Education',
  'Management Consulting',
  'Marketing & Advertising',
  'Real Estate',
  'Banking',
  'Insurance',
  'Retail',
  'Pharmaceuticals',
  'Telecommunications',
] as const;
export type Industry = (typeof INDUSTRIES)[number];

/** Relative number of companies per industry (same order as INDUSTRIES). */
export const INDUSTRY_WEIGHTS = [18, 16, 9, 8, 5, 8, 9, 6, 4, 4, 7, 3, 3];

export interface StaffRange {
  readonly min: number;
  readonly max: number;
  readonly label: string;
}

/**
 * Headcount bands. The contract describes a band as "a low and a high bound joined by a dash", so
 * the open top band ("10,001+" on the network) is written with the contract's own headcount
 * ceiling as its high bound (SearchCompaniesRequest caps headcount_max at 10,000,000):
 * "10001 - 10000000". Every band therefore parses with one pattern, /^(\d+) - (\d+)$/.
 */
export const STAFF_RANGES: readonly StaffRange[] = [
  { min: 0, max: 10, label: '1 - 10' },
  { min: 11, max: 50, label: '11 - 50' },
  { min: 51, max: 200, label: '51 - 200' },
  { min: 201, max: 500, label: '201 - 500' },
  { min: 501, max: 1000, label: '501 - 1000' },
  { min: 1001, max: 5000, label: '1001 - 5000' },
  { min: 5001, max: 10000, label: '5001 - 10000' },
  { min: 10001, max: 10_000_000, label: '10001 - 10000000' },
];

/** The band a staff count falls in. */
export function staffRangeFor(staffCount: number): StaffRange {
  for (const r of STAFF_RANGES) if (staffCount <= r.max) return r;
  return STAFF_RANGES[STAFF_RANGES.length - 1] as StaffRange;
}

/** Name endings per industry (same order as INDUSTRIES). */
export const COMPANY_SUFFIXES: readonly (readonly string[])[] = [
  ['Software', 'Labs', 'Systems', 'Technologies', 'Cloud', 'AI', 'Analytics', 'Digital'],
  ['IT Solutions', 'Technologies', 'Consulting', 'Data Services', 'Networks', 'Infotech', 'Systems'],
  ['Capital', 'Financial', 'Partners', 'Asset Management', 'Payments', 'Investments', 'Wealth'],
  ['Health', 'Medical Center', 'Hospital', 'Clinic', 'Healthcare', 'Care'],
  ['University', 'College', 'Institute', 'Academy', 'School of Business'],
  ['Consulting', 'Advisory', 'Partners', 'Group', 'Strategy'],
  ['Media', 'Creative', 'Agency', 'Marketing', 'Studio', 'Brands'],
  ['Properties', 'Realty', 'Estates', 'Real Estate', 'Homes'],
  ['Bank', 'Bancorp', 'Savings Bank', 'Trust'],
  ['Insurance', 'Mutual', 'Assurance', 'Underwriters'],
  ['Stores', 'Outfitters', 'Market', 'Retail', '& Co.', 'Supply'],
  ['Pharma', 'Therapeutics', 'Biosciences', 'Biotech', 'Laboratories'],
  ['Telecom', 'Networks', 'Communications', 'Mobile', 'Connect'],
];

export const SPECIALITIES: readonly (readonly string[])[] = [
  ['SaaS', 'Cloud computing', 'Developer tools', 'Data platforms', 'Machine learning', 'APIs', 'Security', 'Mobile apps'],
  ['Managed services', 'Cloud migration', 'IT consulting', 'Cybersecurity', 'Systems integration', 'Digital transformation'],
  ['Payments', 'Wealth management', 'Lending', 'Risk management', 'Asset management', 'Fintech'],
  ['Primary care', 'Cardiology', 'Oncology', 'Telehealth', 'Pediatrics', 'Emergency medicine'],
  ['Undergraduate education', 'Research', 'Continuing education', 'Online learning', 'Executive education'],
  ['Strategy', 'Operations', 'M&A', 'Organizational design', 'Digital strategy', 'Change management'],
  ['Brand strategy', 'Performance marketing', 'Content', 'Social media', 'SEO', 'Creative production'],
  ['Commercial real estate', 'Property management', 'Residential sales', 'Leasing', 'Investment'],
  ['Retail banking', 'Commercial banking', 'Mortgages', 'Private banking', 'Treasury services'],
  ['Life insurance', 'Property & casualty', 'Health insurance', 'Reinsurance', 'Claims'],
  ['E-commerce', 'Omnichannel retail', 'Apparel', 'Consumer goods', 'Supply chain'],
  ['Drug discovery', 'Clinical trials', 'Biologics', 'Oncology', 'Vaccines', 'Regulatory affairs'],
  ['5G', 'Broadband', 'Fiber', 'Mobile networks', 'Enterprise connectivity', 'IoT'],
];

// ---------------------------------------------------------------------------------------------
// Job families: titles per seniority band, skills, fields of study

export interface JobFamily {
  readonly key: string;
  /** Individual-contributor titles (inferSeniority gives null). */
  readonly ic: readonly string[];
  readonly manager: readonly string[];
  readonly director: readonly string[];
  readonly vp: readonly string[];
  readonly cLevel: readonly string[];
  readonly skills: readonly string[];
  readonly fields: readonly string[];
  /** What the person works on, for headlines and summaries. */
  readonly topics: readonly string[];
}

export const FAMILIES: readonly JobFamily[] = [
  {
    key: 'engineering',
    ic: ['Software Engineer', 'Senior Software Engineer', 'Staff Software Engineer', 'Principal Engineer', 'Backend Engineer', 'Frontend Developer', 'Full Stack Developer', 'DevOps Engineer', 'Site Reliability Engineer', 'QA Engineer', 'Mobile Developer', 'Lead Software Engineer'],
    manager: ['Engineering Manager', 'Senior Engineering Manager', 'Software Development Manager', 'Team Lead, Platform'],
    director: ['Director of Engineering', 'Senior Director of Engineering', 'Director, Platform Engineering'],
    vp: ['VP of Engineering', 'Vice President, Engineering', 'Head of Engineering', 'SVP Engineering'],
    cLevel: ['Chief Technology Officer', 'CTO', 'Co-Founder & CTO'],
    skills: ['Java', 'Python (Programming Language)', 'JavaScript', 'TypeScript', 'Go (Programming Language)', 'Kubernetes', 'Amazon Web Services (AWS)', 'Docker', 'PostgreSQL', 'React.js', 'Node.js', 'Microservices', 'Distributed Systems', 'CI/CD', 'Git', 'Software Design', 'Linux', 'Apache Kafka', 'System Architecture', 'Agile Methodologies'],
    fields: ['Computer Science', 'Software Engineering', 'Electrical Engineering', 'Computer Engineering', 'Mathematics'],
    topics: ['distributed systems', 'developer platforms', 'cloud infrastructure', 'web applications', 'reliability'],
  },
  {
    key: 'data',
    ic: ['Data Scientist', 'Senior Data Scientist', 'Data Engineer', 'Staff Data Engineer', 'Data Analyst', 'Machine Learning Engineer', 'Analytics Engineer', 'Business Intelligence Analyst'],
    manager: ['Data Science Manager', 'Analytics Manager', 'Manager, Data Engineering'],
    director: ['Director of Data Science', 'Director, Data Engineering', 'Director of Analytics'],
    vp: ['VP of Data', 'Head of Data', 'Head of Analytics'],
    cLevel: ['Chief Data Officer', 'Chief Analytics Officer'],
    skills: ['SQL', 'Python (Programming Language)', 'Machine Learning', 'Data Analysis', 'Statistics', 'Apache Spark', 'Tableau', 'Power BI', 'dbt', 'Deep Learning', 'Data Modeling', 'ETL', 'R (Programming Language)', 'Snowflake', 'A/B Testing'],
    fields: ['Statistics', 'Data Science', 'Computer Science', 'Mathematics', 'Economics'],
    topics: ['analytics', 'machine learning', 'data platforms', 'experimentation'],
  },
  {
    key: 'product',
    ic: ['Product Manager', 'Senior Product Manager', 'Product Owner', 'Product Analyst', 'Technical Product Manager', 'Associate Product Manager'],
    manager: ['Manager, Product Management', 'Product Team Lead', 'Senior Manager, Product'],
    director: ['Director of Product', 'Director, Product Management', 'Senior Director of Product'],
    vp: ['VP of Product', 'Head of Product', 'Vice President, Product'],
    cLevel: ['Chief Product Officer', 'CPO'],
    skills: ['Product Management', 'Product Strategy', 'Roadmapping', 'User Research', 'Agile Methodologies', 'Scrum', 'Jira', 'A/B Testing', 'Go-to-Market Strategy', 'Stakeholder Management', 'Product Discovery', 'SQL'],
    fields: ['Business Administration', 'Computer Science', 'Economics', 'Industrial Engineering'],
    topics: ['product strategy', 'B2B products', 'growth', 'user experience'],
  },
  {
    key: 'design',
    ic: ['Product Designer', 'Senior Product Designer', 'UX Designer', 'UI Designer', 'UX Researcher', 'Graphic Designer', 'Visual Designer'],
    manager: ['Design Manager', 'UX Team Lead'],
    director: ['Director of Design', 'Design Director', 'Creative Director'],
    vp: ['VP of Design', 'Head of Design'],
    cLevel: ['Chief Design Officer', 'Chief Creative Officer'],
    skills: ['Figma', 'User Experience (UX)', 'User Interface Design', 'Prototyping', 'Design Systems', 'User Research', 'Adobe Photoshop', 'Adobe Illustrator', 'Interaction Design', 'Wireframing'],
    fields: ['Graphic Design', 'Human-Computer Interaction', 'Industrial Design', 'Fine Arts', 'Psychology'],
    topics: ['product design', 'design systems', 'user research'],
  },
  {
    key: 'sales',
    ic: ['Account Executive', 'Senior Account Executive', 'Sales Development Representative', 'Business Development Representative', 'Enterprise Account Executive', 'Sales Consultant', 'Sales Representative', 'Solutions Consultant'],
    manager: ['Sales Manager', 'Regional Sales Manager', 'Business Development Manager', 'Inside Sales Team Lead'],
    director: ['Director of Sales', 'Sales Director', 'Director, Enterprise Sales'],
    vp: ['VP of Sales', 'Vice President of Sales', 'Head of Sales', 'SVP, Global Sales'],
    cLevel: ['Chief Revenue Officer', 'Chief Commercial Officer', 'CRO'],
    skills: ['Sales', 'B2B Sales', 'Salesforce', 'Negotiation', 'Account Management', 'Business Development', 'Lead Generation', 'Solution Selling', 'Cold Calling', 'CRM', 'Sales Operations', 'Customer Relationship Management (CRM)'],
    fields: ['Business Administration', 'Marketing', 'Communications', 'Economics'],
    topics: ['enterprise sales', 'new business', 'partnerships', 'revenue growth'],
  },
  {
    key: 'marketing',
    ic: ['Marketing Specialist', 'Content Strategist', 'Digital Marketing Specialist', 'Growth Marketer', 'SEO Specialist', 'Brand Strategist', 'Marketing Coordinator', 'Copywriter', 'Social Media Specialist'],
    manager: ['Marketing Manager', 'Product Marketing Manager', 'Brand Manager', 'Content Marketing Manager'],
    director: ['Director of Marketing', 'Marketing Director', 'Director, Demand Generation'],
    vp: ['VP of Marketing', 'Head of Marketing', 'Head of Growth'],
    cLevel: ['Chief Marketing Officer', 'CMO'],
    skills: ['Digital Marketing', 'Content Marketing', 'Search Engine Optimization (SEO)', 'Social Media Marketing', 'Google Analytics', 'Marketing Strategy', 'Brand Management', 'Email Marketing', 'HubSpot', 'Copywriting', 'Demand Generation', 'Google Ads'],
    fields: ['Marketing', 'Communications', 'Journalism', 'Business Administration'],
    topics: ['brand', 'demand generation', 'content', 'growth marketing'],
  },
  {
    key: 'finance',
    ic: ['Financial Analyst', 'Senior Financial Analyst', 'Accountant', 'Senior Accountant', 'Investment Analyst', 'Credit Analyst', 'Risk Analyst', 'Auditor', 'Associate', 'Portfolio Analyst'],
    manager: ['Finance Manager', 'Accounting Manager', 'Risk Manager', 'Portfolio Manager'],
    director: ['Finance Director', 'Director of Financial Planning & Analysis', 'Managing Director'],
    vp: ['VP of Finance', 'Vice President, Risk', 'Head of Finance', 'Head of Treasury'],
    cLevel: ['Chief Financial Officer', 'CFO', 'Chief Risk Officer'],
    skills: ['Financial Analysis', 'Financial Modeling', 'Accounting', 'Microsoft Excel', 'Budgeting', 'Forecasting', 'Risk Management', 'Corporate Finance', 'Valuation', 'Auditing', 'IFRS', 'Investment Management', 'Credit Analysis'],
    fields: ['Finance', 'Accounting', 'Economics', 'Business Administration'],
    topics: ['financial planning', 'risk', 'capital markets', 'investments'],
  },
  {
    key: 'people',
    ic: ['Recruiter', 'Technical Recruiter', 'HR Business Partner', 'Talent Acquisition Specialist', 'People Operations Specialist', 'HR Generalist'],
    manager: ['HR Manager', 'Talent Acquisition Manager', 'Recruiting Team Lead'],
    director: ['Director of People', 'HR Director', 'Director of Talent Acquisition'],
    vp: ['VP of People', 'Head of People', 'Head of Talent'],
    cLevel: ['Chief People Officer', 'Chief Human Resources Officer', 'CHRO'],
    skills: ['Recruiting', 'Talent Acquisition', 'Human Resources (HR)', 'Employee Relations', 'Onboarding', 'Performance Management', 'Interviewing', 'Compensation & Benefits', 'HR Policies', 'Workday'],
    fields: ['Human Resources Management', 'Psychology', 'Business Administration', 'Sociology'],
    topics: ['hiring', 'people operations', 'culture', 'talent'],
  },
  {
    key: 'operations',
    ic: ['Operations Analyst', 'Operations Specialist', 'Supply Chain Analyst', 'Business Analyst', 'Procurement Specialist', 'Logistics Coordinator', 'Store Associate'],
    manager: ['Operations Manager', 'Store Manager', 'Supply Chain Manager', 'Facilities Manager'],
    director: ['Director of Operations', 'Operations Director', 'Director, Supply Chain'],
    vp: ['VP of Operations', 'Head of Operations', 'Vice President, Supply Chain'],
    cLevel: ['Chief Operating Officer', 'COO'],
    skills: ['Operations Management', 'Supply Chain Management', 'Process Improvement', 'Lean Six Sigma', 'Logistics', 'Procurement', 'Inventory Management', 'Project Management', 'Business Analysis', 'Vendor Management'],
    fields: ['Operations Management', 'Industrial Engineering', 'Business Administration', 'Logistics'],
    topics: ['operations', 'supply chain', 'process improvement'],
  },
  {
    key: 'customer',
    ic: ['Customer Success Specialist', 'Customer Support Specialist', 'Technical Support Engineer', 'Implementation Consultant', 'Client Services Associate'],
    manager: ['Customer Success Team Lead', 'Support Manager', 'Client Services Manager'],
    director: ['Director of Customer Success', 'Director, Customer Support'],
    vp: ['VP of Customer Success', 'Head of Customer Experience'],
    cLevel: ['Chief Customer Officer'],
    skills: ['Customer Success', 'Customer Service', 'Customer Experience', 'Zendesk', 'Onboarding', 'Account Management', 'Technical Support', 'Customer Retention', 'Troubleshooting'],
    fields: ['Business Administration', 'Communications', 'Psychology'],
    topics: ['customer success', 'customer experience', 'support operations'],
  },
  {
    key: 'legal',
    ic: ['Associate Attorney', 'Corporate Counsel', 'Paralegal', 'Compliance Analyst', 'Legal Counsel', 'Senior Counsel'],
    manager: ['Compliance Manager', 'Legal Team Lead'],
    director: ['Director of Compliance', 'Legal Director'],
    vp: ['VP, Legal', 'Head of Legal', 'Deputy General Counsel, Vice President'],
    cLevel: ['Chief Legal Officer', 'Chief Compliance Officer'],
    skills: ['Contract Negotiation', 'Corporate Law', 'Compliance', 'Regulatory Compliance', 'Legal Research', 'Litigation', 'Data Privacy', 'Mergers & Acquisitions', 'GDPR'],
    fields: ['Law', 'Political Science', 'International Relations'],
    topics: ['commercial contracts', 'compliance', 'privacy'],
  },
  {
    key: 'it',
    ic: ['Systems Administrator', 'IT Support Specialist', 'Network Engineer', 'Security Analyst', 'Cloud Engineer', 'Solutions Architect', 'Database Administrator', 'IT Consultant'],
    manager: ['IT Manager', 'Infrastructure Manager', 'Service Desk Manager'],
    director: ['Director of IT', 'IT Director', 'Director, Information Security'],
    vp: ['VP of Information Technology', 'Head of IT', 'Head of Information Security'],
    cLevel: ['Chief Information Officer', 'CIO', 'Chief Information Security Officer'],
    skills: ['IT Service Management', 'Network Administration', 'Microsoft Azure', 'Active Directory', 'Information Security', 'ITIL', 'VMware', 'Linux', 'Windows Server', 'Cisco Networking', 'Cybersecurity', 'Cloud Computing'],
    fields: ['Information Technology', 'Computer Science', 'Information Systems', 'Network Engineering'],
    topics: ['IT infrastructure', 'security', 'cloud operations'],
  },
  {
    key: 'clinical',
    ic: ['Registered Nurse', 'Physician', 'Nurse Practitioner', 'Physical Therapist', 'Pharmacist', 'Medical Assistant', 'Clinical Research Coordinator', 'Resident Physician'],
    manager: ['Nurse Manager', 'Clinical Manager', 'Practice Manager'],
    director: ['Director of Nursing', 'Medical Director', 'Clinical Director'],
    vp: ['VP of Clinical Operations', 'Head of Nursing', 'Vice President, Patient Care'],
    cLevel: ['Chief Medical Officer', 'Chief Nursing Officer'],
    skills: ['Patient Care', 'Healthcare', 'Clinical Research', 'Nursing', 'Medicine', 'Electronic Medical Record (EMR)', 'Patient Safety', 'Hospitals', 'Basic Life Support (BLS)', 'Healthcare Management'],
    fields: ['Nursing', 'Medicine', 'Public Health', 'Pharmacy', 'Biology'],
    topics: ['patient care', 'clinical quality', 'healthcare operations'],
  },
  {
    key: 'academic',
    ic: ['Professor', 'Associate Professor', 'Assistant Professor', 'Lecturer', 'Research Fellow', 'Postdoctoral Researcher', 'Teaching Assistant', 'Academic Advisor'],
    manager: ['Admissions Manager', 'Research Manager', 'Department Manager'],
    director: ['Director of Admissions', 'Program Director', 'Director of Research'],
    vp: ['Vice President for Research', 'Head of Department', 'Vice President, Academic Affairs'],
    cLevel: ['President', 'Chief Academic Officer'],
    skills: ['Research', 'Teaching', 'Higher Education', 'Curriculum Development', 'Public Speaking', 'Academic Writing', 'Grant Writing', 'Qualitative Research', 'Lecturing', 'Student Affairs'],
    fields: ['Education', 'Biology', 'History', 'Physics', 'Chemistry', 'English Literature', 'Sociology'],
    topics: ['research', 'teaching', 'student success'],
  },
  {
    key: 'consulting',
    ic: ['Consultant', 'Senior Consultant', 'Business Analyst', 'Associate Consultant', 'Management Consultant', 'Strategy Analyst'],
    manager: ['Engagement Manager', 'Manager, Strategy & Operations', 'Consulting Manager'],
    director: ['Director', 'Associate Director, Strategy', 'Managing Director'],
    vp: ['Vice President, Consulting', 'Head of Strategy'],
    cLevel: ['Founder & Managing Partner', 'Chief Strategy Officer'],
    skills: ['Management Consulting', 'Strategy', 'Business Strategy', 'Stakeholder Management', 'Project Management', 'Change Management', 'Business Process Improvement', 'Financial Modeling', 'PowerPoint', 'Market Research'],
    fields: ['Business Administration', 'Economics', 'Finance', 'Engineering'],
    topics: ['strategy', 'transformation', 'operating models'],
  },
  {
    key: 'research',
    ic: ['Research Scientist', 'Senior Scientist', 'Clinical Research Associate', 'Regulatory Affairs Specialist', 'Quality Assurance Specialist', 'Medical Science Liaison', 'Lab Technician'],
    manager: ['Lab Manager', 'Clinical Trial Manager', 'Quality Manager'],
    director: ['Director of Research', 'Director, Regulatory Affairs', 'Director, Clinical Development'],
    vp: ['VP of Research & Development', 'Head of Clinical Development', 'Vice President, Regulatory Affairs'],
    cLevel: ['Chief Scientific Officer', 'Chief Medical Officer'],
    skills: ['Clinical Trials', 'Drug Development', 'Regulatory Affairs', 'GMP', 'Biotechnology', 'Life Sciences', 'Molecular Biology', 'Good Clinical Practice (GCP)', 'Pharmacology', 'Quality Assurance'],
    fields: ['Biochemistry', 'Chemistry', 'Pharmacology', 'Molecular Biology', 'Biomedical Engineering'],
    topics: ['drug development', 'clinical research', 'regulatory strategy'],
  },
];

/** Titles of the chief executive (the first decision maker of every mid-size or larger company). */
export const CEO_TITLES = ['Chief Executive Officer', 'CEO', 'Founder & CEO', 'Co-Founder & CEO', 'President & CEO', 'Co-Founder'];

const F = (key: string): number => FAMILIES.findIndex((f) => f.key === key);

/** Job family weights per industry (same order as INDUSTRIES). */
export const FAMILY_WEIGHTS_BY_INDUSTRY: readonly Float64Array[] = (
  [
    { engineering: 35, data: 8, product: 8, design: 5, sales: 12, marketing: 7, finance: 3, people: 3, operations: 4, customer: 8, legal: 1, it: 4, consulting: 2 },
    { engineering: 22, it: 22, consulting: 10, data: 6, sales: 10, customer: 8, operations: 6, product: 3, marketing: 4, finance: 3, people: 4, legal: 2 },
    { finance: 32, engineering: 12, data: 8, sales: 12, operations: 10, legal: 5, customer: 6, product: 4, marketing: 4, people: 3, it: 4 },
    { clinical: 52, operations: 12, finance: 6, people: 6, it: 6, customer: 6, research: 4, marketing: 3, legal: 2, data: 3 },
    { academic: 55, operations: 10, it: 8, people: 5, finance: 5, marketing: 5, research: 8, customer: 4 },
    { consulting: 48, data: 8, finance: 8, people: 5, sales: 8, operations: 6, it: 6, marketing: 4, legal: 2, engineering: 5 },
    { marketing: 42, design: 15, sales: 14, data: 5, customer: 6, operations: 5, finance: 3, people: 3, engineering: 4, product: 3 },
    { sales: 38, finance: 15, operations: 16, marketing: 10, legal: 6, customer: 8, people: 3, it: 4 },
    { finance: 40, operations: 12, engineering: 10, sales: 10, legal: 5, data: 6, it: 7, customer: 6, people: 4 },
    { finance: 30, sales: 16, operations: 15, customer: 12, data: 6, engineering: 6, legal: 6, people: 4, it: 5 },
    { operations: 30, sales: 22, marketing: 12, customer: 12, finance: 6, engineering: 6, people: 5, data: 4, design: 3 },
    { research: 38, clinical: 8, sales: 15, operations: 10, legal: 6, data: 6, marketing: 6, finance: 5, people: 4, it: 2 },
    { engineering: 25, it: 12, sales: 15, customer: 14, operations: 12, marketing: 6, data: 6, finance: 4, people: 3, product: 3 },
  ] as Record<string, number>[]
).map((weights) => {
  const out = new Float64Array(FAMILIES.length);
  let sum = 0;
  FAMILIES.forEach((fam, i) => {
    sum += weights[fam.key] ?? 0;
    out[i] = sum;
  });
  return out;
});

export const GENERAL_SKILLS = [
  'Leadership', 'Project Management', 'Communication', 'Microsoft Excel', 'Team Management', 'Strategic Planning',
  'Microsoft Office', 'Problem Solving', 'Teamwork', 'Public Speaking', 'Management', 'Analytical Skills',
  'Time Management', 'Cross-functional Team Leadership', 'Presentations', 'Mentoring', 'English', 'Negotiation',
];

export const SENIORITY_OF_TIER: readonly (SeniorityBand | null)[] = [null, 'manager', 'director', 'vp', 'c-level'];

/** Titles of a family for a tier: 0 individual, 1 manager, 2 director, 3 vp, 4 c-level. */
export function titlesFor(family: JobFamily, tier: number): readonly string[] {
  switch (tier) {
    case 0: return family.ic;
    case 1: return family.manager;
    case 2: return family.director;
    case 3: return family.vp;
    default: return family.cLevel;
  }
}

// ---------------------------------------------------------------------------------------------
// Education, certifications and other sections

export const BACHELOR_DEGREES = ['Bachelor of Science - BS', 'Bachelor of Arts - BA', 'Bachelor of Engineering - BE', 'Bachelor of Technology - BTech', 'Bachelor of Business Administration - BBA', "Bachelor's degree"];
export const MASTER_DEGREES = ['Master of Science - MS', 'Master of Business Administration - MBA', 'Master of Arts - MA', 'Master of Engineering - MEng', "Master's degree"];
export const DOCTORATES = ['Doctor of Philosophy - PhD', 'Doctor of Medicine - MD'];
export const SHORT_PROGRAMS = ['Certificate', 'Exchange Program', 'Executive Education', 'Summer School'];
export const GRADES = ['3.8 GPA', '3.6 GPA', 'First Class Honours', 'Upper Second Class Honours', '8.9 CGPA', 'Magna Cum Laude', 'Cum Laude', 'Distinction'];
export const ACTIVITIES = ['Debate Society', 'Student Council', 'Hackathon organiser', 'Varsity rowing', 'Entrepreneurship Club', 'Model United Nations', 'Teaching assistant', 'Orchestra', 'Women in Tech', 'Investment Club'];

/**
 * School name patterns per country: {city} and {region} come from the country's city table (few
 * distinct names), {surname} from faker's names for the country (many), so most schools are
 * surname-named and names rarely repeat; a repeated name is the same school (see index.ts).
 */
export const SCHOOL_PATTERNS: Readonly<Record<string, { readonly place: readonly string[]; readonly named: readonly string[] }>> = {
  US: { place: ['University of {city}', '{city} State University', '{city} Institute of Technology', 'The University of {region}'], named: ['{surname} University', '{surname} College', '{surname} Institute of Technology', '{surname} School of Business', 'Saint {surname} University'] },
  GB: { place: ['University of {city}', '{city} Metropolitan University', "King's College {city}"], named: ['{surname} College', '{surname} University', '{surname} Business School'] },
  DE: { place: ['Technische Universität {city}', 'Universität {city}', 'Hochschule {city}'], named: ['{surname} School of Management', '{surname} Hochschule', '{surname}-Universität'] },
  FR: { place: ['Université de {city}', 'École Polytechnique de {city}', 'Sciences Po {city}'], named: ['École {surname}', 'Institut {surname}', 'Université {surname}'] },
  IN: { place: ['Indian Institute of Technology {city}', 'University of {city}', '{city} Institute of Management'], named: ['{surname} College of Engineering', '{surname} University', '{surname} Institute of Technology'] },
  CA: { place: ['University of {city}', '{city} Metropolitan University', '{city} College'], named: ['{surname} University', '{surname} College'] },
  AU: { place: ['University of {city}', '{city} University of Technology'], named: ['{surname} University', '{surname} Institute'] },
  NL: { place: ['Universiteit {city}', '{city} University of Technology', 'Hogeschool {city}'], named: ['{surname} Hogeschool', '{surname} University College'] },
  ES: { place: ['Universidad de {city}', 'Universidad Politécnica de {city}', 'Escuela de Negocios de {city}'], named: ['Universidad {surname}', 'Instituto {surname}'] },
  SG: { place: ['National University of Singapore', 'Nanyang Technological University', 'Singapore Management University', 'Singapore University of Technology and Design'], named: ['{surname} Institute Singapore', '{surname} College Singapore'] },
  BR: { place: ['Universidade de {city}', 'Universidade Federal de {city}', 'Pontifícia Universidade Católica de {city}'], named: ['Fundação {surname}', 'Faculdade {surname}', 'Centro Universitário {surname}'] },
  IE: { place: ['University College {city}', 'Trinity College {city}', '{city} Institute of Technology'], named: ['{surname} College', '{surname} Institute'] },
};

export interface Certifier {
  readonly name: string;
  readonly universalName: string | null;
  readonly certs: readonly string[];
  /** Validity in years, 0 when the certificate does not expire. */
  readonly validYears: number;
}

const cert = (name: string, universalName: string | null, validYears: number, certs: string[]): Certifier => ({ name, universalName, certs, validYears });

export const CERTIFIERS_BY_FAMILY: Readonly<Record<string, readonly Certifier[]>> = {
  engineering: [
    cert('Amazon Web Services (AWS)', 'amazon-web-services', 3, ['AWS Certified Solutions Architect – Associate', 'AWS Certified Developer – Associate', 'AWS Certified Cloud Practitioner']),
    cert('The Linux Foundation', 'the-linux-foundation', 3, ['Certified Kubernetes Administrator (CKA)', 'Certified Kubernetes Application Developer (CKAD)']),
    cert('Google', 'google', 2, ['Professional Cloud Architect', 'Associate Cloud Engineer']),
    cert('Scrum Alliance', 'scrum-alliance', 0, ['Certified ScrumMaster (CSM)']),
  ],
  data: [
    cert('Google', 'google', 2, ['Professional Data Engineer', 'Google Data Analytics Certificate']),
    cert('Microsoft', 'microsoft', 1, ['Microsoft Certified: Power BI Data Analyst Associate', 'Microsoft Certified: Azure Data Scientist Associate']),
    cert('Coursera', 'coursera', 0, ['Machine Learning Specialization', 'Deep Learning Specialization']),
    cert('Snowflake', 'snowflake-computing', 2, ['SnowPro Core Certification']),
  ],
  product: [
    cert('Scrum.org', 'scrum-org', 0, ['Professional Scrum Product Owner I (PSPO I)']),
    cert('Pragmatic Institute', 'pragmatic-institute', 0, ['Pragmatic Certified Product Manager']),
  ],
  design: [cert('Nielsen Norman Group', 'nielsen-norman-group', 0, ['UX Certification']), cert('Google', 'google', 0, ['Google UX Design Certificate'])],
  sales: [cert('Salesforce', 'salesforce', 0, ['Salesforce Certified Administrator', 'Salesforce Certified Sales Cloud Consultant']), cert('HubSpot Academy', 'hubspot', 2, ['Inbound Sales Certification'])],
  marketing: [cert('Google', 'google', 1, ['Google Ads Search Certification', 'Google Analytics Certification']), cert('HubSpot Academy', 'hubspot', 2, ['Content Marketing Certification', 'Inbound Marketing Certification'])],
  finance: [cert('CFA Institute', 'cfa-institute', 0, ['CFA Level I', 'Chartered Financial Analyst (CFA)']), cert('AICPA', 'aicpa', 0, ['Certified Public Accountant (CPA)']), cert('GARP', 'garp', 0, ['Financial Risk Manager (FRM)'])],
  people: [cert('SHRM', 'shrm', 3, ['SHRM Certified Professional (SHRM-CP)']), cert('CIPD', 'cipd', 0, ['CIPD Level 5 Associate Diploma'])],
  operations: [cert('Project Management Institute', 'project-management-institute', 3, ['Project Management Professional (PMP)']), cert('ASQ', 'asq', 3, ['Lean Six Sigma Green Belt'])],
  customer: [cert('Gainsight', 'gainsight', 0, ['Certified Customer Success Manager (CCSM)']), cert('Zendesk', 'zendesk', 2, ['Zendesk Support Administrator'])],
  legal: [cert('IAPP', 'iapp', 2, ['Certified Information Privacy Professional/Europe (CIPP/E)']), cert('State Bar', null, 0, ['Admitted to the Bar'])],
  it: [cert('Microsoft', 'microsoft', 1, ['Microsoft Certified: Azure Administrator Associate']), cert('Cisco', 'cisco', 3, ['Cisco Certified Network Associate (CCNA)']), cert('(ISC)²', 'isc2', 3, ['Certified Information Systems Security Professional (CISSP)']), cert('AXELOS', 'axelos', 0, ['ITIL 4 Foundation'])],
  clinical: [cert('American Heart Association', 'american-heart-association', 2, ['Basic Life Support (BLS)', 'Advanced Cardiovascular Life Support (ACLS)']), cert('Board of Nursing', null, 2, ['Registered Nurse License'])],
  academic: [cert('Coursera', 'coursera', 0, ['Teaching Online Certificate']), cert('Advance HE', 'advance-he', 0, ['Fellow of the Higher Education Academy (FHEA)'])],
  consulting: [cert('Project Management Institute', 'project-management-institute', 3, ['Project Management Professional (PMP)']), cert('Scrum Alliance', 'scrum-alliance', 2, ['Certified ScrumMaster (CSM)'])],
  research: [cert('ACRP', 'acrp', 2, ['Certified Clinical Research Professional (CCRP)']), cert('RAPS', 'raps', 3, ['Regulatory Affairs Certification (RAC)'])],
};

export const HONOR_TITLES = ['Employee of the Year', 'Dean\'s List', 'President\'s Club', 'Innovation Award', 'Best Paper Award', 'Hackathon Winner', 'Excellence Award', 'Top Performer', 'Scholarship Recipient', 'Leadership Award'];
export const PUBLISHERS = ['Medium', 'IEEE', 'Harvard Business Review', 'ACM', 'Forbes', 'Springer', 'The Lancet', 'Elsevier', 'Substack'];
export const VOLUNTEER_ORGS: readonly { name: string; username: string | null; id: string | null }[] = [
  { name: 'Habitat for Humanity', username: 'habitat-for-humanity-international', id: '27016' },
  { name: 'Red Cross', username: 'red-cross', id: '4391' },
  { name: 'Girls Who Code', username: 'girls-who-code', id: '2810495' },
  { name: 'Code.org', username: 'code-org', id: '2616213' },
  { name: 'UNICEF', username: 'unicef', id: '3281' },
  { name: 'Local Food Bank', username: null, id: null },
  { name: 'Big Brothers Big Sisters', username: 'big-brothers-big-sisters-of-america', id: '23508' },
  { name: 'Teach For All', username: 'teach-for-all', id: '171640' },
  { name: 'WWF', username: 'wwf', id: '9429' },
];
export const VOLUNTEER_ROLES = ['Mentor', 'Volunteer', 'Board Member', 'Tutor', 'Fundraising Volunteer', 'Event Organizer', 'Pro Bono Consultant'];
export const COURSES = ['Machine Learning', 'Corporate Finance', 'Data Structures and Algorithms', 'Operating Systems', 'Microeconomics', 'Organizational Behavior', 'Marketing Management', 'Statistics for Business', 'Negotiation', 'Databases', 'Linear Algebra', 'Business Law'];

export const EMPLOYMENT_TYPES = ['Full-time', 'Full-time', 'Full-time', 'Full-time', 'Full-time', 'Full-time', 'Contract', 'Part-time', 'Self-employed', 'Freelance'];
export const LOCATION_TYPES = ['Hybrid', 'Remote', 'On-site'];
export const COMPANY_TYPES = ['Privately Held', 'Public Company', 'Partnership', 'Self-Owned', 'Nonprofit', 'Educational', 'Government Agency'];
export const CALL_TO_ACTIONS: readonly { type: string; displayText: string; path: string }[] = [
  { type: 'VIEW_WEBSITE', displayText: 'Visit website', path: '/?utm_source=linkedin&utm_medium=company_page' },
  { type: 'LEARN_MORE', displayText: 'Learn more', path: '/about' },
  { type: 'CONTACT_US', displayText: 'Contact us', path: '/contact' },
  { type: 'SIGN_UP', displayText: 'Sign up', path: '/signup' },
  { type: 'REGISTER', displayText: 'Register', path: '/events' },
];
export const OFFICE_LABELS = ['{city} office', 'EMEA office', 'R&D center', 'Sales office', 'Regional office', '{city} hub', 'Engineering office'];
export const HQ_LABELS = ['Headquarters', '{city} HQ', 'Global Headquarters', 'Head office', 'Main office'];
