/** MFA policy: client defaults, the per-account override, the spec's three rules, effective methods. */
import type { accounts, clients } from '../../../db/schema/index';
import { badRequest } from '../../../shared/errors';
import { M } from '../../../shared/messages';

export const MFA_METHODS = ['email', 'totp'] as const;
export type MfaMethod = (typeof MFA_METHODS)[number];

export interface MfaSettings {
  mfa_enabled: boolean;
  email_enabled: boolean;
  totp_enabled: boolean;
  preferred_method: MfaMethod;
}

type AccountRow = typeof accounts.$inferSelect;
type ClientRow = typeof clients.$inferSelect;

export const clientMfaSettings = (c: ClientRow): MfaSettings => ({
  mfa_enabled: c.mfaEnabled,
  email_enabled: c.mfaEmailEnabled,
  totp_enabled: c.mfaTotpEnabled,
  preferred_method: c.mfaPreferredMethod as MfaMethod,
});

export const accountMfaSettings = (a: AccountRow): MfaSettings => ({
  mfa_enabled: a.mfaEnabled,
  email_enabled: a.mfaEmailEnabled,
  totp_enabled: a.mfaTotpEnabled,
  preferred_method: a.mfaPreferredMethod as MfaMethod,
});

/**
 * The spec's rules. `totpEnrolled` is given for account settings (TOTP cannot be enabled before
 * enrollment); client defaults may require TOTP before members enrolled (they fall back to email).
 */
export function assertMfaRules(s: MfaSettings, totpEnrolled: boolean | null): void {
  if (s.totp_enabled && totpEnrolled === false) throw badRequest(M.totpNotEnrolled);
  if (s.mfa_enabled && !s.email_enabled && !s.totp_enabled) throw badRequest(M.mfaNeedsMethod);
  if (s.preferred_method === 'totp' && !s.totp_enabled) throw badRequest(M.mfaPrimaryTotpDisabled);
}

export interface EffectiveMfa {
  source: 'client_default' | 'account';
  required: boolean;
  methods: MfaMethod[];
  preferred: MfaMethod;
}

/**
 * What login asks of this account. TOTP counts only once the account has enrolled; when no
 * configured method is usable the account falls back to email (its verified address).
 */
export function effectiveMfa(client: ClientRow, account: AccountRow): EffectiveMfa {
  const useDefault = account.mfaUseClientDefault;
  const s = useDefault ? clientMfaSettings(client) : accountMfaSettings(account);
  const enrolled = Boolean(account.totpSecretEnc);
  const methods: MfaMethod[] = [];
  if (s.email_enabled) methods.push('email');
  if (s.totp_enabled && enrolled) methods.push('totp');
  if (methods.length === 0) methods.push('email');
  const preferred = methods.includes(s.preferred_method) ? s.preferred_method : methods[0]!;
  return { source: useDefault ? 'client_default' : 'account', required: s.mfa_enabled, methods, preferred };
}
