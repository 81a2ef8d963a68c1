/**
 * Seniority band inferred from a job title: one pure rule, used for the `seniority` field of person
 * records (the synthetic world and the data lake both call it).
 *
 * The bands follow the contract (openapi/components/schemas/Seniority.yaml):
 *   c-level   chief officers, founders and presidents
 *   vp        vice presidents and heads of
 *   director  directors
 *   manager   managers and team leads
 * and individual contributors get null.
 *
 * The rule, on the title lower-cased with every run of non-letters/digits turned into one space
 * (so "Co-Founder & CTO" reads "co founder cto"), all matches on whole words:
 *   - c-level:  "chief ... officer" (up to three words between), "chief executive", one of the
 *               C-suite acronyms (CEO, CTO, CFO, COO, CMO, CIO, CISO, CPO, CRO, CDO, CHRO, CSO,
 *               CCO, CAO, CNO), "founder"/"co founder"/"cofounder", or "president" not preceded by
 *               "vice". "Chief of Staff", "Chief Architect" and the like are not C-level.
 *   - vp:       "vice president", "vp", "svp", "evp", "avp", or "head of".
 *   - director: "director" (including "Managing Director" and "Associate Director").
 *   - manager:  "manager", "mgr", "team lead" or "team leader", except the individual-contributor
 *               role names "product manager", "program manager", "project manager" and "account
 *               manager" (the contract's own examples give "Senior Product Manager" no band);
 *               "Lead Engineer", "Tech Lead" and "Management Consultant" are individual roles too.
 * When several bands match, the highest wins ("Founder & VP Engineering" is c-level,
 * "Director, Product Manager Team" is director).
 */
export type SeniorityBand = 'c-level' | 'vp' | 'director' | 'manager';

const C_LEVEL =
  /\b(?:chief(?: [a-z0-9]+){0,3} officer|chief executive|ceo|cto|cfo|coo|cmo|cio|ciso|cpo|cro|cdo|chro|cso|cco|cao|cno|founder|co founder|cofounder|(?<!vice )president)\b/;
const VP = /\b(?:vice president|vp|svp|evp|avp|head of)\b/;
const DIRECTOR = /\bdirector\b/;
const IC_MANAGER_ROLES = /\b(?:product|program|project|account) manager\b/g;
const MANAGER = /\b(?:manager|mgr|team lead|team leader)\b/;

function normalizeTitle(title: string): string {
  return title.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

export function inferSeniority(title: string | null): SeniorityBand | null {
  if (title === null) return null;
  const t = normalizeTitle(title);
  if (t === '') return null;
  if (C_LEVEL.test(t)) return 'c-level';
  if (VP.test(t)) return 'vp';
  if (DIRECTOR.test(t)) return 'director';
  if (MANAGER.test(t.replace(IC_MANAGER_ROLES, ' '))) return 'manager';
  return null;
}
