/** Messages of our own (not in the spec) used by the workflows feature. */
export const WorkflowMessages = {
  workflowNotFound: 'Workflow not found',
  runNotFound: 'Workflow run not found',
  triggerNotFound: 'Workflow trigger not found',
  templateReadOnly: 'System templates are read-only; fork the template to make your own copy',
  templateNotRunnable: 'System templates cannot be run; fork the template and publish your copy',
  notEditable: 'Workflow is published and can no longer be edited; fork it to make a new draft',
  alreadyPublished: "Workflow is already in 'PUBLISHED' status",
  hasRuns: 'Workflow has runs and cannot be deleted; archive it instead',
  notPublished: 'Only a published workflow can be run; publish it first',
  archived: 'Workflow is archived; unarchive it to start new runs',
  unsupportedNode: (nodeId: string, type: string) =>
    `Node '${nodeId}' uses node type '${type}', which this service does not support yet; remove it before publishing`,
  noTriggerSecret: 'Only a published webhook-triggered workflow has a trigger secret',
  runNotCancelable: (status: string) => `Workflow run is already '${status}' and cannot be canceled`,
  runChangedMeanwhile: 'Workflow run was changed meanwhile, please retry',
  invalidTriggerSignature: 'Invalid trigger signature',
  invalidTriggerBody: 'Trigger body must be a JSON object',
  nodeNotPermitted: (nodeId: string, type: string, permission: string) =>
    `Insufficient permissions for this action: node '${nodeId}' (${type}) needs ${permission}`,
} as const;
