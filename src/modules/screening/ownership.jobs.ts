/**
 * The wallet-ownership proof email (`delivery: email`): a job owed by the request's transaction and
 * first tried right after its commit, then retried like every email (docs/platform.md, "Jobs").
 * A request no longer pending (proved, failed, expired or canceled meanwhile) is not mailed.
 */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import { defineJob, EMAIL_RETRY } from '../../platform/jobs/index';
import { findOwnership } from './ownership.repo';

export const ownershipProofEmailJob = defineJob<{ requestId: string }>({
  kind: 'screening.ownership_proof_email',
  ...EMAIL_RETRY,
  async run(deps, { requestId }) {
    const r = await findOwnership(deps.db, null, requestId);
    if (r?.status !== 'pending') return;
    const res = r.userId
      ? await deps.db.execute(sql`select email from kyc_users where id = ${r.userId}::uuid`)
      : await deps.db.execute(
          sql`select email from business_customers where id = ${r.businessCustomerId}::uuid`,
        );
    const to = rowsOf<{ email: string }>(res)[0]?.email;
    if (!to) return;
    const url = `${deps.config.publicUrl}/wallet-proof/${r.token}`;
    await deps.mailer.send({
      to,
      subject: 'Please confirm you control your wallet',
      text: `Please prove that you control ${r.address} on ${r.chain}: ${url}\nThis link expires at ${r.expiresAt.toISOString()}.`,
    });
  },
});
