/** KYC/KYB verification endpoints: links, resubmission, attestation, records, downloads, sandbox simulate. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Deps } from '../../deps';
import { clientAuthOf } from '../../plugins/auth';
import type { DownloadedFile } from '../../providers/verification/port';
import { sendDownload } from '../../shared/download';
import { UserSchema } from '../customers/customers.schemas';
import {
  AttestationBody,
  BusinessIdParams,
  DocumentParams,
  ErrorSchema,
  FileSchema,
  HistorySchema,
  KybDetailParams,
  LinkBody,
  LinkSchema,
  QuestionnaireFileParams,
  SimulateBody,
  UserIdParams,
  VerificationIdParams,
  VerificationRecordSchema,
} from './kyc.schemas';
import { downloadDocument, downloadQuestionnaireFile, getDetail, getHistory } from './records.service';
import {
  attestUser,
  createVerificationLink,
  resubmitVerification,
  simulateVerification,
} from './verification.service';

export const KYC_TAG = ['KYC'];
export const KYB_TAG = ['KYB'];

const sendFile = (reply: FastifyReply, f: DownloadedFile) => sendDownload(reply, { ...f, content: f.bytes });

export async function kycRoutes(app: FastifyInstance, { deps }: { deps: Deps }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const linkResponses = {
    201: LinkSchema,
    403: ErrorSchema,
    404: ErrorSchema,
    500: ErrorSchema,
    503: ErrorSchema,
  };

  r.post(
    '/kyc/users/:user_id/verification-link',
    {
      config: { permission: 'kyc.users.write' },
      schema: {
        tags: KYC_TAG,
        summary: 'Create a KYC verification link',
        description:
          'Opens a verification at `level` (default `standard`; unknown level: 422) and returns the hosted page URL, ' +
          'valid SVC_VERIFICATION_LINK_TTL_SECONDS. The user moves to kyc_status `pending` (an approved user stays ' +
          'approved until a new result) with verification_mode `service_kyc`; kyc.status_changed (source `client_api`) ' +
          'when that changes anything. 403 when KYC link generation is disabled for the client.',
        params: UserIdParams,
        body: LinkBody,
        response: linkResponses,
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(await createVerificationLink(deps, clientAuthOf(req), 'kyc', req.params.user_id, req.body)),
  );

  r.post(
    '/kyb/businesses/:business_customer_id/verification-link',
    {
      config: { permission: 'kyb.businesses.write' },
      schema: {
        tags: KYB_TAG,
        summary: 'Create a KYB verification link',
        description:
          'Like the KYC link, for a business customer (default level `kyb-standard`); kyb.status_changed on change.',
        params: BusinessIdParams,
        body: LinkBody,
        response: linkResponses,
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(
          await createVerificationLink(
            deps,
            clientAuthOf(req),
            'kyb',
            req.params.business_customer_id,
            req.body,
          ),
        ),
  );

  r.post(
    '/kyc/:user_id/resubmit',
    {
      config: { permission: 'kyc.users.write' },
      schema: {
        tags: KYC_TAG,
        summary: 'Resubmit a KYC verification',
        description:
          'A new verification link when the latest record is declined, expired or in_review (400 otherwise, and when ' +
          'there is none). Level and redirect_url default to those of the previous verification.',
        params: UserIdParams,
        body: LinkBody,
        response: { ...linkResponses, 400: ErrorSchema },
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(await resubmitVerification(deps, clientAuthOf(req), 'kyc', req.params.user_id, req.body)),
  );

  r.post(
    '/kyb/:business_customer_id/resubmit',
    {
      config: { permission: 'kyb.businesses.write' },
      schema: {
        tags: KYB_TAG,
        summary: 'Resubmit a KYB verification',
        description: 'As for KYC: after a declined, expired or in_review record only.',
        params: BusinessIdParams,
        body: LinkBody,
        response: { ...linkResponses, 400: ErrorSchema },
      },
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(
          await resubmitVerification(
            deps,
            clientAuthOf(req),
            'kyb',
            req.params.business_customer_id,
            req.body,
          ),
        ),
  );

  r.post(
    '/kyc/users/:user_id/attestation',
    {
      config: { permission: 'kyc.users.write' },
      schema: {
        tags: KYC_TAG,
        summary: 'Attest a user’s verification externally',
        description:
          'The client verified the user itself: verification_mode `external_attestation`, external_status = status, ' +
          'verification_source `external`; kyc_status follows (verified -> approved, rejected -> rejected, ' +
          'pending -> pending). Emits kyc.status_changed (source `client_api`) when anything changed.',
        params: UserIdParams,
        body: AttestationBody,
        response: { 200: UserSchema, 404: ErrorSchema },
      },
    },
    async (req) => attestUser(deps, clientAuthOf(req), req.params.user_id, req.body),
  );

  r.get(
    '/kyc/detail/:user_id',
    {
      config: { permission: 'kyc.users.read' },
      schema: {
        tags: KYC_TAG,
        summary: 'The most recent KYC verification record',
        description:
          'Ordered by decision_at descending (nulls last), then fetched_at descending. 404 when the client has no ' +
          'record for the user. Extended groups only with the client’s visibility groups.',
        params: UserIdParams,
        response: { 200: VerificationRecordSchema, 404: ErrorSchema },
      },
    },
    async (req) => getDetail(deps, 'kyc', clientAuthOf(req).clientId, req.params.user_id),
  );

  r.get(
    '/kyc/detail/:user_id/history',
    {
      config: { permission: 'kyc.users.read' },
      schema: {
        tags: KYC_TAG,
        summary: 'Every KYC verification record of a user',
        description: 'Newest first (same order as the detail); an empty array, never 404.',
        params: UserIdParams,
        response: { 200: HistorySchema },
      },
    },
    async (req) => getHistory(deps, clientAuthOf(req).clientId, req.params.user_id),
  );

  r.get(
    '/kyc/detail/:user_id/documents/:file_role',
    {
      config: { permission: 'kyc.users.read' },
      schema: {
        tags: KYC_TAG,
        summary: 'Download a document of the most recent record',
        description:
          'A role listed in `documents` (visibility group `documents` required, else 404). The file with its ' +
          'Content-Type and `Content-Disposition: attachment`.',
        params: DocumentParams,
        response: { 200: FileSchema, 404: ErrorSchema, 503: ErrorSchema },
      },
    },
    async (req, reply) =>
      sendFile(
        reply,
        await downloadDocument(deps, clientAuthOf(req).clientId, req.params.user_id, req.params.file_role),
      ),
  );

  r.get(
    '/kyc/detail/:user_id/questionnaire-files/:qfile_id',
    {
      config: { permission: 'kyc.users.read' },
      schema: {
        tags: KYC_TAG,
        summary: 'Download a source-of-funds questionnaire file',
        description:
          'A `qfile_id` listed in `sof_questionnaire.files` (visibility group `sof_questionnaire`, else 404).',
        params: QuestionnaireFileParams,
        response: { 200: FileSchema, 404: ErrorSchema, 503: ErrorSchema },
      },
    },
    async (req, reply) =>
      sendFile(
        reply,
        await downloadQuestionnaireFile(
          deps,
          clientAuthOf(req).clientId,
          req.params.user_id,
          req.params.qfile_id,
        ),
      ),
  );

  r.get(
    '/kyb/detail/:business_id',
    {
      config: { permission: 'kyb.businesses.read' },
      schema: {
        tags: KYB_TAG,
        summary: 'The most recent KYB verification record',
        description: 'Same record shape with `kind: "kyb"` and the company fields; 404 when none.',
        params: KybDetailParams,
        response: { 200: VerificationRecordSchema, 404: ErrorSchema },
      },
    },
    async (req) => getDetail(deps, 'kyb', clientAuthOf(req).clientId, req.params.business_id),
  );

  r.post(
    '/sandbox/verifications/:verification_id/simulate',
    {
      config: { permission: 'sandbox.simulate' },
      schema: {
        tags: ['sandbox'],
        summary: 'Make the sandbox verification provider decide',
        description:
          'Sandbox deployments only (404 in production). The sandbox provider records the outcome and sends a signed ' +
          'notification to /providers/verification/notifications, exactly as after the hosted page. Returns the record.',
        params: VerificationIdParams,
        body: SimulateBody,
        response: { 200: VerificationRecordSchema, 404: ErrorSchema },
      },
    },
    async (req) =>
      simulateVerification(
        deps,
        clientAuthOf(req),
        req.params.verification_id,
        req.body.outcome,
        req.body.checks,
      ),
  );
}
