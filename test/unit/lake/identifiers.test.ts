import {
  companyKeyFromQuery,
  keyFromOperatorInput,
  personKeyFromQuery,
  slugFromNetworkUrl,
} from '../../../src/domain/lake/identifiers';
import { AppError } from '../../../src/domain/errors';

describe('slugFromNetworkUrl', () => {
  it.each([
    'https://www.linkedin.com/in/priya-raman-4b2a91/',
    'https://www.linkedin.com/in/priya-raman-4b2a91',
    'http://www.linkedin.com/in/priya-raman-4b2a91',
    'https://linkedin.com/in/priya-raman-4b2a91',
    'www.linkedin.com/in/priya-raman-4b2a91',
    'linkedin.com/in/priya-raman-4b2a91',
    'https://uk.linkedin.com/in/priya-raman-4b2a91/',
    'HTTPS://WWW.LINKEDIN.COM/IN/Priya-Raman-4B2A91/',
    'https://www.linkedin.com/in/priya-raman-4b2a91?trk=public_profile',
    'https://www.linkedin.com/in/priya-raman-4b2a91/?utm_source=x#experience',
    'https://www.linkedin.com/in/priya-raman-4b2a91#about',
    'https://www.linkedin.com//in//priya-raman-4b2a91//',
    'https://www.linkedin.com/in/priya-raman-4b2a91/details/experience/',
    '  https://www.linkedin.com/in/priya-raman-4b2a91/  ',
  ])('%s -> priya-raman-4b2a91', (url) => {
    expect(slugFromNetworkUrl(url, 'in')).toBe('priya-raman-4b2a91');
  });

  it('decodes percent-encoded slugs', () => {
    expect(slugFromNetworkUrl('https://www.linkedin.com/in/jos%C3%A9-garc%C3%ADa/', 'in')).toBe('josé-garcía');
  });

  it.each([
    'https://www.linkedin.com/company/northwind-analytics/',
    'https://www.linkedin.com/in/',
    'https://www.linkedin.com/',
    'https://example.com/in/priya-raman',
    'https://linkedin.com.evil.example/in/priya-raman',
    'https://notlinkedin.com/in/priya-raman',
    'ftp://www.linkedin.com/in/priya-raman',
    'javascript:alert(1)',
    'priya-raman',
    'https://www.linkedin.com/in/%E0%A4%A',
    'https://www.linkedin.com/in/%20/',
    '',
  ])('%s is not a person profile URL', (url) => {
    expect(slugFromNetworkUrl(url, 'in')).toBeUndefined();
  });

  it('extracts company slugs only from /company/ URLs', () => {
    expect(slugFromNetworkUrl('https://www.linkedin.com/company/Northwind-Analytics/?viewAsMember=true', 'company')).toBe(
      'northwind-analytics',
    );
    expect(slugFromNetworkUrl('https://www.linkedin.com/in/priya-raman', 'company')).toBeUndefined();
  });
});

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as AppError).code;
  }
  return 'no error';
};

describe('personKeyFromQuery', () => {
  it('checks network_url, then username, then id, and uses the first present', () => {
    const id = '3f6c2a9e-8b1d-4c7a-9e52-1d0b7a4c6e21';
    expect(personKeyFromQuery({ network_url: 'linkedin.com/in/a-b', username: 'c', id })).toEqual({ by: 'username', value: 'a-b' });
    expect(personKeyFromQuery({ username: 'C-D', id })).toEqual({ by: 'username', value: 'c-d' });
    expect(personKeyFromQuery({ id: id.toUpperCase() })).toEqual({ by: 'id', value: id });
  });

  it('a malformed network_url is a 400 naming it, without falling back to username', () => {
    expect(code(() => personKeyFromQuery({ network_url: 'https://www.linkedin.com/company/x', username: 'ok' }))).toBe(
      'VALIDATION_ERROR',
    );
    expect(() => personKeyFromQuery({ network_url: 'nope' })).toThrow(/network_url/);
  });

  it('no identifier, or a blank username, is a 400', () => {
    expect(code(() => personKeyFromQuery({}))).toBe('VALIDATION_ERROR');
    expect(code(() => personKeyFromQuery({ username: '   ' }))).toBe('VALIDATION_ERROR');
  });
});

describe('companyKeyFromQuery', () => {
  it('checks network_url, username, company_id, id in that order', () => {
    const id = '9b2e4f10-6c3a-4d8e-b71f-2a5c9e0d4b73';
    expect(companyKeyFromQuery({ network_url: 'https://linkedin.com/company/acme/', company_id: '1' })).toEqual({
      by: 'username',
      value: 'acme',
    });
    expect(companyKeyFromQuery({ username: 'Acme', company_id: '1' })).toEqual({ by: 'username', value: 'acme' });
    expect(companyKeyFromQuery({ company_id: '0018234567', id })).toEqual({ by: 'company_id', value: '18234567' });
    expect(companyKeyFromQuery({ id })).toEqual({ by: 'id', value: id });
    expect(code(() => companyKeyFromQuery({ network_url: 'https://www.linkedin.com/in/x' }))).toBe('VALIDATION_ERROR');
    expect(code(() => companyKeyFromQuery({}))).toBe('VALIDATION_ERROR');
  });
});

describe('keyFromOperatorInput', () => {
  it('recognizes each identifier form', () => {
    expect(keyFromOperatorInput('person', 'https://www.linkedin.com/in/Priya/')).toEqual({ by: 'username', value: 'priya' });
    expect(keyFromOperatorInput('person', '3F6C2A9E-8B1D-4C7A-9E52-1D0B7A4C6E21')).toEqual({
      by: 'id',
      value: '3f6c2a9e-8b1d-4c7a-9e52-1d0b7a4c6e21',
    });
    expect(keyFromOperatorInput('person', '412908337')).toEqual({ by: 'network_id', value: '412908337' });
    expect(keyFromOperatorInput('person', 'ACoAABiZ2fE')).toEqual({ by: 'network_urn', value: 'ACoAABiZ2fE' });
    expect(keyFromOperatorInput('person', 'Priya-Raman')).toEqual({ by: 'username', value: 'priya-raman' });
    expect(keyFromOperatorInput('company', '18234567')).toEqual({ by: 'company_id', value: '18234567' });
    expect(keyFromOperatorInput('company', 'linkedin.com/company/acme')).toEqual({ by: 'username', value: 'acme' });
    expect(code(() => keyFromOperatorInput('person', 'https://www.linkedin.com/company/acme'))).toBe('VALIDATION_ERROR');
  });
});
