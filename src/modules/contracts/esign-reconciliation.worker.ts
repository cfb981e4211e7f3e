/**
 * The contracts feature's one loop, `esign-reconciliation` (see the manifest): defined only with an
 * e-signing provider whose port has the reconcile part (Documenso).
 */
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import type { Deps } from '../../deps';
import { rereadEsignEnvelope } from './requests/esign-notifications.service';

/**
 * The e-signing reconciliation sweep (the loop `esign-reconciliation`, run only with a provider whose
 * port has the reconcile part, `esign.reconcile`: Documenso). Such a vendor notifies by webhooks
 * that can be lost (Documenso retries a failed one only a few times, close together): live requests
 * whose envelope was not read for the policy's `afterSeconds` are claimed (SKIP LOCKED, so nodes
 * share the work) and read again through the same path as a webhook. Returns how many were read.
 */
export async function reconcileHostedEnvelopes(deps: Deps, limit = 20): Promise<number> {
  const policy = deps.providers.esign.reconcile;
  if (!policy || !deps.providers.esign.hosted) return 0;
  const now = deps.clock.now();
  const due = new Date(now.getTime() - policy.afterSeconds * 1000);
  const res = await deps.db.execute(sql`
    update contract_requests set provider_checked_at = ${now}
     where id in (select id from contract_requests
                   where status in ('sent', 'in_progress') and envelope_ref is not null
                     and (provider_checked_at is null or provider_checked_at <= ${due})
                   order by provider_checked_at nulls first
                   limit ${limit} for update skip locked)
    returning envelope_ref`);
  const rows = rowsOf<{ envelope_ref: string }>(res);
  for (const r of rows) {
    try {
      await rereadEsignEnvelope(deps, { envelopeRef: r.envelope_ref });
    } catch (err) {
      // Documenso unreachable: the request is read again after the next interval.
      deps.log.warn({ err }, 'e-signing envelope could not be read again; retried later');
    }
  }
  return rows.length;
}
