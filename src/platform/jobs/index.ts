export {
  defineJob,
  EMAIL_RETRY,
  type JobContext,
  type JobDefinition,
  PermanentJobError,
} from './define';
export { type EmailOutcome, emailErrorText, sendEmailThenMark } from './email';
export { enqueueJob, enqueueJobId, enqueueJobs, type NewJob } from './enqueue';
export { RetryNotBeforeError } from './retry-not-before';
export { createJobRunner, jobRegistry, purgeFinishedJobs, runDueJobs, runJobsNow } from './runner';
export {
  cancelTimer,
  cancelTimers,
  defineTimer,
  enqueueTimersBackfill,
  runDueTimers,
  setTimer,
  setTimers,
  type TimerDefinition,
  type TimerRef,
  timerRef,
  timersBackfillJob,
} from './timers';
