/**
 * The Documenso e-signing adapter (docs/vendors/documenso.md). Documenso hosts the signing: the
 * envelope is created with every participant as a recipient and every field placed, distributed
 * without Documenso emails (`distributionMethod: NONE`); our own invitation links lead to our page,
 * which asks for the email code when the participant needs one and then hands over to Documenso's
 * signing page. Documenso's webhooks carry only a shared secret: they are hints, the envelope is read
 * again (`hosted.readEnvelope`) and the contracts module applies what it holds. At completion the
 * sealed PDFs are Documenso's; the certificate and the audit trail stay ours.
 */
import type { FastifyBaseLogger } from 'fastify';
import { safeEqual } from '../../../shared/crypto';
import type { InboundCapability } from '../../capabilities';
import {
  type EnvelopeField,
  type EnvelopeInput,
  type EnvelopeResult,
  type EnvelopeSnapshot,
  type EsignHint,
  type EsignHostedSigning,
  type EsignNotification,
  EsignNotReadyError,
  type EsignProvider,
  EsignProviderError,
  type EsignReconcile,
} from '../port';
import { DocumensoApiError, type DocumensoClient } from './client';
import {
  createPayload,
  extraActingRecipients,
  fieldOf,
  matchRecipients,
  parseWebhook,
  ROLE_OF,
  snapshotOf,
} from './mapping';

/** Documenso's refusal of a document we sent (400: the file or a field is not acceptable). */
export const DOCUMENT_REFUSED = 'Document could not be processed';

export class DocumensoEsign implements EsignProvider {
  readonly name = 'documenso';
  readonly configured = true;
  readonly inbound: InboundCapability<EsignNotification, EsignHint>;
  readonly hosted: EsignHostedSigning;
  readonly reconcile: EsignReconcile;
  /** Documenso's web app, where `/sign/{token}` is served: the API URL without `/api/v2`. */
  private readonly appUrl: string;

  constructor(
    private readonly client: DocumensoClient,
    opts: { apiUrl: string; webhookSecret: string; reconcileSeconds: number },
    private readonly log: FastifyBaseLogger,
  ) {
    this.appUrl = opts.apiUrl.replace(/\/api\/v2\/?$/, '');
    const secret = opts.webhookSecret;
    this.inbound = { parse: (req) => parseWebhook(req, (received) => safeEqual(received, secret)) };
    // Webhooks can be lost (a few retries close together): live envelopes are read again.
    this.reconcile = { afterSeconds: opts.reconcileSeconds };
    this.hosted = {
      readEnvelope: (ref) => this.readEnvelope(ref),
      signingUrl: (ref, recipientRef) => this.signingUrl(ref, recipientRef),
      sealedDocuments: (ref) => this.sealedDocuments(ref),
      replaceRecipient: (ref, oldRef, p, fields) => this.replaceRecipient(ref, oldRef, p, fields),
    };
  }

  async createEnvelope(input: EnvelopeInput): Promise<EnvelopeResult> {
    let id: string;
    try {
      ({ id } = await this.client.createEnvelope(
        createPayload(input),
        input.documents.map((d) => ({ fileName: d.fileName, content: d.content })),
      ));
    } catch (err) {
      const out = this.refusedOrOutage(err);
      if (out instanceof Error) throw out;
      return out;
    }
    try {
      const envelope = await this.client.getEnvelope(id);
      const recipients = matchRecipients(input, envelope);
      if (!recipients) throw new EsignProviderError('documenso envelope does not hold every participant');
      const extra = extraActingRecipients(envelope, recipients);
      if (extra.length > 0) {
        // The team's default recipients (Documenso adds them to every envelope): someone we do not
        // know would have to act before the contract could be sealed. Fixed in Documenso's team settings.
        this.log.error(
          { upstream: 'documenso', envelopeId: id, roles: extra.map((x) => x.role) },
          'documenso added recipients we did not send (team default recipients?): envelope withdrawn',
        );
        throw new EsignProviderError(
          `documenso envelope holds ${extra.length} recipient(s) we did not send (team default recipients)`,
        );
      }
      await this.client.distribute(id);
      return { accepted: true, ref: id, recipients };
    } catch (err) {
      // The draft reached no one (nothing is emailed by Documenso): removed, so a retry starts clean.
      await this.client
        .deleteEnvelope(id)
        .catch((e) =>
          this.log.warn({ err: e, upstream: 'documenso' }, 'documenso draft envelope left behind'),
        );
      const out = this.refusedOrOutage(err);
      if (out instanceof Error) throw out;
      return out;
    }
  }

  /**
   * A 400 is Documenso refusing the document (not repeated), unless it is the team's plan limit
   * (quota of documents, recipients or envelope items): then it is an outage of sorts, the job
   * retries later, and it is logged and counted as a failed upstream call.
   */
  private refusedOrOutage(err: unknown): Error | { accepted: false; ref: null; reason: string } {
    if (err instanceof DocumensoApiError && err.status === 400) {
      if (!err.limitExceeded) return { accepted: false, ref: null, reason: DOCUMENT_REFUSED };
      this.client.countFailure(err.operation, 'limit_exceeded');
      this.log.warn(
        { upstream: 'documenso', operation: err.operation, appCode: err.appCode },
        'documenso refused the call: the team is at its plan limit (retried later)',
      );
    }
    return this.wrap(err);
  }

  /** POST /envelope/cancel; an envelope Documenso already ended (completed, rejected, cancelled) is left as it is. */
  async voidEnvelope(ref: string, reason: string): Promise<void> {
    try {
      await this.client.cancel(ref, reason);
    } catch (err) {
      if (err instanceof DocumensoApiError && (err.status === 400 || err.status === 404)) {
        // Cancelled, completed or rejected meanwhile, or gone: nothing is left to stop.
        const env = await this.client.getEnvelope(ref).catch((e: unknown) => {
          if (e instanceof DocumensoApiError && e.status === 404) return null;
          throw this.wrap(e);
        });
        if (env?.status === 'COMPLETED') {
          // Every recipient signed there before our void or expiry: Documenso holds an executed
          // contract that we consider voided. Someone must look (docs/vendors/documenso.md, "Void").
          this.client.countFailure('envelope.cancel', 'completed_at_vendor');
          this.log.error(
            { upstream: 'documenso', envelopeId: ref },
            'documenso envelope is COMPLETED while we void it: Documenso holds a signed contract',
          );
          return;
        }
        if (env?.status !== 'PENDING') return;
      }
      throw this.wrap(err);
    }
  }

  /** Documenso sends no email (distribution NONE): there is nothing to tell it, and nothing bounces there. */
  async participantsInvited(): Promise<void> {}

  /**
   * The participant acts on Documenso's page, which reports it; our page reports nothing
   * (an open is Documenso's `readStatus`, read again from its webhook).
   */
  async reportAction(): Promise<void> {}

  /** Documenso's webhooks are read by the inbound part (hints), never as signed notifications. */
  verifyNotification(): null {
    return null;
  }

  private async readEnvelope(ref: string): Promise<EnvelopeSnapshot> {
    try {
      return snapshotOf(await this.client.getEnvelope(ref));
    } catch (err) {
      // A 404 is "deleted there" or just as well "not visible to this key" (a key of another team, a
      // moved envelope): never taken as a final state. Reported as a failure, read again later; an
      // envelope really deleted there ends with our own expiry (its void finds nothing to stop).
      if (err instanceof DocumensoApiError && err.status === 404) {
        this.client.countFailure(err.operation, 'not_found');
        this.log.error(
          { upstream: 'documenso', envelopeId: ref },
          'documenso envelope not found (deleted there, or not visible to the API key): left as it is',
        );
        throw new EsignProviderError('documenso envelope not found or not visible to this API key', {
          cause: err,
        });
      }
      throw this.wrap(err);
    }
  }

  /** `{app}/sign/{token}` of the recipient as Documenso holds it now (the token is never stored). */
  private async signingUrl(ref: string, recipientRef: string): Promise<string> {
    try {
      const x = await this.client.getRecipient(Number(recipientRef));
      if (x.envelopeId !== ref)
        throw new EsignProviderError('documenso recipient belongs to another envelope');
      return `${this.appUrl}/sign/${encodeURIComponent(x.token)}`;
    } catch (err) {
      throw this.wrap(err);
    }
  }

  /** Each envelope item's `signed` version, in envelope order, once the envelope is COMPLETED. */
  private async sealedDocuments(ref: string): Promise<Buffer[]> {
    try {
      const env = await this.client.getEnvelope(ref);
      if (env.status !== 'COMPLETED')
        throw new EsignNotReadyError(`documenso envelope is ${env.status}, not yet sealed`);
      const items = [...env.envelopeItems].sort((a, b) => a.order - b.order);
      const out: Buffer[] = [];
      for (const item of items) {
        const pdf = await this.client.downloadSigned(item.id);
        if (pdf.subarray(0, 5).toString('latin1') !== '%PDF-')
          throw new EsignProviderError('documenso signed download is not a PDF');
        out.push(pdf);
      }
      return out;
    } catch (err) {
      throw this.wrap(err);
    }
  }

  /**
   * Documenso keeps a recipient's token when its email changes, so a corrected participant's old
   * link would still open: the recipient is deleted and created again (a new token), its fields
   * placed again on the same envelope items.
   */
  private async replaceRecipient(
    ref: string,
    oldRef: string,
    p: EnvelopeInput['participants'][number],
    fields: { documentIndex: number; field: EnvelopeField }[],
  ): Promise<string> {
    try {
      const env = await this.client.getEnvelope(ref);
      const items = [...env.envelopeItems].sort((a, b) => a.order - b.order);
      if (env.recipients.some((x) => String(x.id) === oldRef))
        await this.client.deleteRecipient(Number(oldRef));
      const name = p.name.slice(0, 255);
      // A previous attempt may have created the recipient (its answer lost, or its fields failed):
      // reused, so no duplicate is left (a recipient without fields could never sign and would hold
      // the envelope open; a second CC would get a second link). With or without fields.
      const leftover = env.recipients.find(
        (x) =>
          String(x.id) !== oldRef &&
          x.email === p.email.toLowerCase() &&
          x.name === name &&
          x.role === ROLE_OF[p.kind] &&
          (x.signingOrder ?? null) === p.signingOrder &&
          (x.role === 'CC' || x.signingStatus === 'NOT_SIGNED') &&
          !env.fields.some((f) => f.recipientId === x.id),
      );
      const [created] = leftover
        ? [leftover]
        : await this.client.createRecipients(ref, [
            { email: p.email, name, role: ROLE_OF[p.kind], signingOrder: p.signingOrder },
          ]);
      if (!created) throw new EsignProviderError('documenso created no recipient');
      if (fields.length > 0)
        await this.client.createFields(
          ref,
          fields.map(({ documentIndex, field }) => ({
            recipientId: created.id,
            envelopeItemId: items[documentIndex]!.id,
            ...fieldOf(field),
          })),
        );
      return String(created.id);
    } catch (err) {
      throw this.wrap(err);
    }
  }

  private wrap(err: unknown): Error {
    if (err instanceof EsignProviderError || err instanceof EsignNotReadyError) return err;
    return new EsignProviderError(err instanceof Error ? err.message : 'documenso call failed', {
      cause: err,
    });
  }
}
