export interface Principal {
  keyId: string;
  /** When the key stops working (null: never); a key past it is answered like an unknown one. */
  keyExpiresAt: Date | null;
  accountId: string;
  accountName: string;
  role: 'owner' | 'member';
  workspaceId: string;
  workspaceName: string;
  workspaceLimit: number;
  memberAllowance: number | null;
  licenseStatus: 'active' | 'inactive';
  licenseExpiresAt: Date | null;
}

export type LicenseState = 'active' | 'inactive' | 'expired';

/** A license is usable when it is active and, if it has an end date, that date is still ahead. */
export function licenseState(p: Pick<Principal, 'licenseStatus' | 'licenseExpiresAt'>, now = new Date()): LicenseState {
  if (p.licenseStatus !== 'active') return 'inactive';
  if (p.licenseExpiresAt && p.licenseExpiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}
