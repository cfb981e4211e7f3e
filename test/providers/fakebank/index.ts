/**
 * A third bank provider that exists only in the tests ("Acme Bank"): its own session store, its own
 * notification signature (`x-acme-signature`: hex HMAC-SHA256 of the raw body). It is one
 * definition, handed to the app the way the registry lists the real ones (TestAppOptions
 * `providerDefinitions`), selected with SVC_BANK_PROVIDER=acmebank: nothing else is wired by hand.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type {
  BankChoice,
  BankNotification,
  BankProvider,
  BankSession,
  CreateSessionInput,
  SessionRef,
  StartAuthorizationInput,
  StartedAuthorization,
} from '../../../src/providers/bank/port';
import { defineProvider } from '../../../src/providers/definition';
import { SubTppSimulator } from '../../../src/providers/subtpp/simulator';
import { safeEqual } from '../../../src/shared/crypto';

export const ACME_SIGNATURE_HEADER = 'x-acme-signature';

interface AcmeSession {
  refId: string;
  paymentId: string | null;
  status: string;
  updatedAt: Date;
}

export const acmeSign = (secret: string, rawBody: string) =>
  createHmac('sha256', secret).update(rawBody).digest('hex');

export class AcmeBank implements BankProvider {
  readonly name = 'acmebank';
  readonly sessions = new Map<string, AcmeSession>();
  constructor(readonly secret: string) {}

  async listBanks(): Promise<BankChoice[]> {
    return [
      { id: 'acme-retail', name: 'Acme Retail Bank', description: 'The test bank', currencies: ['EUR'] },
    ];
  }

  async createSession(_input: CreateSessionInput): Promise<{ refId: string }> {
    const refId = `acme_${randomBytes(6).toString('hex')}`;
    this.sessions.set(refId, { refId, paymentId: null, status: 'initiated', updatedAt: new Date() });
    return { refId };
  }

  async startAuthorization(input: StartAuthorizationInput): Promise<StartedAuthorization> {
    const s = this.sessions.get(input.refId);
    if (!s) throw new Error('unknown session');
    s.paymentId = `acmepay_${randomBytes(6).toString('hex')}`;
    s.status = 'awaiting_bank_authorization';
    return {
      transferId: s.paymentId,
      authorizationUrl: `https://bank.acme.example/authorize/${s.paymentId}`,
      providerStatus: s.status,
    };
  }

  async getSession({ refId }: SessionRef): Promise<BankSession | null> {
    const s = this.sessions.get(refId);
    if (!s) return null;
    return {
      refId,
      transferId: s.paymentId,
      providerStatus: s.status,
      expired: false,
      authorizationUrl: s.paymentId ? `https://bank.acme.example/authorize/${s.paymentId}` : null,
      updatedAt: s.updatedAt,
    };
  }

  async cancelSession(refId: string): Promise<void> {
    const s = this.sessions.get(refId);
    if (s) s.status = 'canceled';
  }

  /** Acme's own notification shape: `{ id, reference, payment_id, state, at }`, signed over the raw body. */
  verifyNotification(
    rawBody: string,
    headers: Record<string, string | string[] | undefined>,
  ): BankNotification | null {
    const h = headers[ACME_SIGNATURE_HEADER];
    const sig = Array.isArray(h) ? h[0] : h;
    if (!sig || !safeEqual(sig, acmeSign(this.secret, rawBody))) return null;
    const b: unknown = JSON.parse(rawBody);
    if (typeof b !== 'object' || b === null) return null;
    const { id, reference, payment_id, state, at } = b as Record<string, unknown>;
    if (typeof id !== 'string' || typeof reference !== 'string' || typeof state !== 'string') return null;
    const s = this.sessions.get(reference);
    if (s) {
      s.status = state;
      s.updatedAt = new Date();
    }
    return {
      eventId: id,
      refId: reference,
      transferId: typeof payment_id === 'string' ? payment_id : null,
      providerStatus: state,
      occurredAt: typeof at === 'string' ? new Date(at) : new Date(),
      reason: null,
      kind: 'payment',
    };
  }
}

/** Acme's settings, on the shared reader like any provider's. */
export interface AcmeSettings {
  secret: string;
}

export const acmeBankProvider = defineProvider({
  kind: 'bank',
  name: 'acmebank',
  readConfig: (r): AcmeSettings => {
    const secret = r.optional('SVC_ACME_SECRET');
    if (!secret) r.problems.push('SVC_ACME_SECRET is required when SVC_BANK_PROVIDER=acmebank');
    return { secret: secret ?? '' };
  },
  create: ({ settings, secrets }) => ({
    bank: new AcmeBank(settings.secret),
    subTpp: new SubTppSimulator(secrets.hashKey),
  }),
});
