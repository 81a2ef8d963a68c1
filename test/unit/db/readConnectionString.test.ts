import { readConnectionString } from '../../../src/db/replicas';

describe('readConnectionString (the read pool of DATABASE_READ_URL)', () => {
  const parsed = (url: string) => new URL(readConnectionString(url)).searchParams;

  it('makes every transaction read-only and names the pool enrich-read', () => {
    const p = parsed('postgres://reader:s3cret@10.0.0.2:5432/enrich');
    expect(p.get('options')).toBe('-c default_transaction_read_only=on');
    expect(p.get('application_name')).toBe('enrich-read');
    expect(readConnectionString('postgres://reader:s3cret@10.0.0.2:5432/enrich')).toMatch(/^postgres:\/\/reader:s3cret@10\.0\.0\.2:5432\/enrich\?/);
  });

  it("keeps the operator's own application_name and options, adding read-only to them", () => {
    const p = parsed('postgres://u@h/db?application_name=reports&options=-c%20work_mem%3D64MB&sslmode=require');
    expect(p.get('application_name')).toBe('reports');
    expect(p.get('options')).toBe('-c work_mem=64MB -c default_transaction_read_only=on');
    expect(p.get('sslmode')).toBe('require');
  });
});
