/** A bulk job's `allowed_actions`, from the job machine (docs/platform.md, "allowed_actions"). */
import { type ActionViewer, allowedActionsSchema, defineActions } from '../../platform/actions';
import { type JobStatus, jobMachine } from './bulk.machine';

interface JobFacts {
  status: JobStatus;
  /** A previewed job past preview_expires_at: confirm expires it (400) instead of queuing it. */
  previewLapsed: boolean;
}

export const jobActions = defineActions(jobMachine, (j: JobFacts) => j.status, {
  confirm: { permission: 'payments.write', triggers: ['confirm'], when: (j) => !j.previewLapsed },
  retry: { permission: 'payments.write', triggers: ['retry'] },
  cancel: { permission: 'payments.write', triggers: ['cancel'] },
});

export const JobActionsSchema = allowedActionsSchema(jobActions, {
  confirm: 'POST /checkout/paylink/bulk/{bulk_id}/confirm (previewed, before preview_expires_at)',
  retry: 'POST /checkout/paylink/bulk/{bulk_id}/retry (completed_with_errors)',
  cancel: 'POST /checkout/paylink/bulk/{bulk_id}/cancel (previewed, queued or processing)',
});

/** The API view with the caller's actions at `now`. */
export function withJobActions<V extends { status: JobStatus; preview_expires_at: string | null }>(
  dto: V,
  viewer: ActionViewer,
  now: Date,
) {
  const previewLapsed =
    dto.preview_expires_at !== null && Date.parse(dto.preview_expires_at) <= now.getTime();
  return Object.assign(dto, {
    allowed_actions: jobActions.of({ status: dto.status, previewLapsed }, viewer),
  });
}
