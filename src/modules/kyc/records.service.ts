/** Reading verification records: KYC detail and history, document and questionnaire-file downloads, KYB detail. */
import type { Deps } from '../../deps';
import type { DownloadedFile, VerificationKind } from '../../providers/verification/port';
import { VerificationUnavailableError } from '../../providers/verification/port';
import { AppError, notFound } from '../../shared/errors';
import type { VisibilityGroup } from '../admin/clients-admin.service';
import { KycMessages } from './kyc.messages';
import { toRecordView } from './records.view';
import {
  findClient,
  findSession,
  listSubjectRecords,
  mostRecentRecord,
  type RecordRow,
} from './verification.repo';

async function groupsOf(deps: Deps, clientId: string): Promise<Set<VisibilityGroup>> {
  const c = await findClient(deps.db, clientId);
  return new Set((c?.visibilityGroups ?? []) as VisibilityGroup[]);
}

async function mostRecentOrThrow(deps: Deps, kind: VerificationKind, clientId: string, subjectId: string) {
  const r = await mostRecentRecord(deps.db, kind, clientId, subjectId);
  if (!r) throw notFound(KycMessages.verificationRecordNotFound);
  return r;
}

/** GET /kyc/detail/{user_id} and GET /kyb/detail/{business_id}: the most recent record. */
export async function getDetail(deps: Deps, kind: VerificationKind, clientId: string, subjectId: string) {
  const r = await mostRecentOrThrow(deps, kind, clientId, subjectId);
  return toRecordView(r, await groupsOf(deps, clientId), deps.secrets.encryptionKey);
}

/** GET /kyc/detail/{user_id}/history: every record, newest first; empty (never 404) when none. */
export async function getHistory(deps: Deps, clientId: string, userId: string) {
  const [rows, groups] = await Promise.all([
    listSubjectRecords(deps.db, 'kyc', clientId, userId),
    groupsOf(deps, clientId),
  ]);
  return { records: rows.map((r) => toRecordView(r, groups, deps.secrets.encryptionKey)) };
}

async function providerRefOf(deps: Deps, r: RecordRow): Promise<string> {
  const s = await findSession(deps.db, r.sessionId);
  return s!.providerRef!;
}

/** Files are fetched from the provider at download time; its outage is a 503, never a fake 404. */
async function fromProvider(deps: Deps, fetch: () => Promise<DownloadedFile | null>) {
  try {
    return await fetch();
  } catch (err) {
    deps.log.warn({ err }, 'downloading a verification file from the provider failed');
    if (err instanceof VerificationUnavailableError) throw new AppError(503, KycMessages.providerUnavailable);
    return null;
  }
}

/** A document role listed on the most recent record; 404 without the `documents` group or when not listed. */
export async function downloadDocument(
  deps: Deps,
  clientId: string,
  userId: string,
  fileRole: string,
): Promise<DownloadedFile> {
  const r = await mostRecentOrThrow(deps, 'kyc', clientId, userId);
  const groups = await groupsOf(deps, clientId);
  if (!groups.has('documents') || !(r.documents ?? []).some((d) => d.file_role === fileRole))
    throw notFound(KycMessages.documentNotFound);
  const ref = await providerRefOf(deps, r);
  const file = await fromProvider(deps, () => deps.providers.verification.fetchDocument(ref, fileRole));
  if (!file) throw notFound(KycMessages.documentNotFound);
  return file;
}

/** A file attached to the source-of-funds questionnaire of the most recent record (needs `sof_questionnaire`). */
export async function downloadQuestionnaireFile(
  deps: Deps,
  clientId: string,
  userId: string,
  qfileId: string,
): Promise<DownloadedFile> {
  const r = await mostRecentOrThrow(deps, 'kyc', clientId, userId);
  const groups = await groupsOf(deps, clientId);
  const view = toRecordView(r, groups, deps.secrets.encryptionKey);
  const files = (view.sof_questionnaire?.files ?? []) as { qfile_id?: string }[];
  if (!files.some((f) => f.qfile_id === qfileId)) throw notFound(KycMessages.questionnaireFileNotFound);
  const ref = await providerRefOf(deps, r);
  const file = await fromProvider(deps, () =>
    deps.providers.verification.fetchQuestionnaireFile(ref, qfileId),
  );
  if (!file) throw notFound(KycMessages.questionnaireFileNotFound);
  return file;
}
