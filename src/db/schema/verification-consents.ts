import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { clients } from './clients';
import { createdAt, idColumn, ts } from './columns';
import { verificationSessions } from './verification-sessions';

/**
 * Evidence of a person's acceptance of a verification provider's privacy disclosure on our hosted
 * page (Sumsub: docs/going-live-sumsub.md §3a), append-only: one row per acceptance, never updated
 * or deleted by the service. It holds the text exactly as it was shown (the client's name filled
 * in), the privacy link shown with it, the version the page carried, when, and from which IP
 * address and browser (user agent). Kept as long as the verification records it supports
 * (docs/vendors/sumsub.md, "Consent evidence").
 */
export const verificationConsents = pgTable(
  'verification_consents',
  {
    id: idColumn('id'),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => verificationSessions.id),
    /** The provider whose disclosure it is (e.g. `sumsub`). */
    provider: text('provider').notNull(),
    version: text('version').notNull(),
    /** The text as shown to the person (placeholders filled in). */
    text: text('text').notNull(),
    privacyUrl: text('privacy_url'),
    acceptedAt: ts('accepted_at').notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: createdAt(),
  },
  (t) => [index('verification_consents_session_idx').on(t.sessionId, t.acceptedAt)],
);
