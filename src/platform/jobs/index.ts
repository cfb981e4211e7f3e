export { defineJob, type JobContext, type JobDefinition, PermanentJobError } from './define';
export { enqueueJob, type NewJob } from './enqueue';
export { createJobRunner, jobRegistry, purgeFinishedJobs, runDueJobs } from './runner';
