import { inferSeniority } from '../../src/domain/people/seniority';

describe('inferSeniority', () => {
  it.each([
    // The contract's own examples.
    ['Chief Technology Officer', 'c-level'],
    ['VP of Engineering', 'vp'],
    ['VP of Product', 'vp'],
    ['Director of Engineering', 'director'],
    ['Director of Engineering, Platform', 'director'],
    ['Director, Data Engineering', 'director'],
    ['Engineering Manager, Query Engine', 'manager'],
    ['Senior Product Manager', null],
    ['Staff Data Engineer', null],
    ['Senior Product Designer', null],
    // c-level: chief officers, C-suite acronyms, founders, presidents.
    ['Chief Executive Officer', 'c-level'],
    ['Chief Medical Officer', 'c-level'],
    ['Chief Information Security Officer', 'c-level'],
    ['CEO', 'c-level'],
    ['Founder & CEO', 'c-level'],
    ['Co-Founder & CTO', 'c-level'],
    ['Cofounder', 'c-level'],
    ['co-founder', 'c-level'],
    ['CFO (interim)', 'c-level'],
    ['President', 'c-level'],
    ['President & CEO', 'c-level'],
    ['Founder & VP Engineering', 'c-level'],
    // vp: vice presidents and heads of.
    ['Vice President, Engineering', 'vp'],
    ['Senior Vice President of Sales', 'vp'],
    ['SVP Engineering', 'vp'],
    ['EVP, Operations', 'vp'],
    ['Head of Data', 'vp'],
    ['Vice President for Research', 'vp'],
    // director.
    ['Managing Director', 'director'],
    ['Associate Director, Strategy', 'director'],
    ['Creative Director', 'director'],
    // manager: managers and team leads, but not the IC role names.
    ['Sales Manager', 'manager'],
    ['Product Marketing Manager', 'manager'],
    ['Manager, Product Management', 'manager'],
    ['Team Lead, Platform', 'manager'],
    ['Recruiting Team Leader', 'manager'],
    ['Product Manager', null],
    ['Program Manager', null],
    ['Technical Project Manager', null],
    ['Account Manager', null],
    // individual contributors and near misses.
    ['Software Engineer', null],
    ['Lead Software Engineer', null],
    ['Tech Lead', null],
    ['Management Consultant', null],
    ['Chief of Staff', null],
    ['Chief Architect', null],
    ['Headhunter', null],
    ['Directory Services Engineer', null],
    ['Vice-President', 'vp'],
    ['', null],
    [null, null],
  ] as const)('%s -> %s', (title, band) => {
    expect(inferSeniority(title)).toBe(band);
  });

  it('is case-insensitive and ignores punctuation', () => {
    expect(inferSeniority('DIRECTOR OF SALES')).toBe('director');
    expect(inferSeniority('  vp,   marketing ')).toBe('vp');
    expect(inferSeniority('Head-of-Growth')).toBe('vp');
  });
});
