/**
 * System templates: read-only example definitions every client sees in GET /workflows
 * (`is_template: true`) and can fork into an own draft. They live in code, with fixed ids.
 */
import type { Graph } from './workflows-graph.policy';

export interface WorkflowTemplate {
  id: string;
  name: string;
  description: string;
  graph: Graph;
  createdAt: Date;
}

const RELEASED = new Date('2026-01-01T00:00:00Z');

export const WORKFLOW_TEMPLATES: readonly WorkflowTemplate[] = [
  {
    id: '00000000-0000-4000-8000-00000000f001',
    name: 'Onboard and verify a user',
    description:
      'Creates a user from the input (email, first_name), sends a KYC verification link by email, waits a day, ' +
      'then checks whether the user is verified.',
    createdAt: RELEASED,
    graph: {
      trigger: { type: 'manual' },
      nodes: [
        {
          id: 'create_user',
          type: 'create_user',
          config: { email: '{{input.email}}', first_name: '{{input.first_name}}' },
          next: 'kyc',
        },
        { id: 'kyc', type: 'kyc', config: { user_id: '{{steps.create_user.user_id}}' }, next: 'send_link' },
        {
          id: 'send_link',
          type: 'email',
          config: {
            to: '{{input.email}}',
            subject: 'Please verify your identity',
            text: 'Open {{steps.kyc.verification_url}} to verify your identity.',
          },
          next: 'wait',
        },
        { id: 'wait', type: 'wait', config: { seconds: 86400 }, next: 'check' },
        {
          id: 'check',
          type: 'condition',
          config: { left: '{{steps.kyc.status}}', operator: 'eq', right: 'pending' },
          on_true: 'remind',
        },
        {
          id: 'remind',
          type: 'notify',
          config: {
            subject: 'User has not finished verification',
            text: 'User {{input.email}} is still pending.',
          },
        },
      ],
    },
  },
  {
    id: '00000000-0000-4000-8000-00000000f002',
    name: 'Request a payment',
    description:
      'Creates a payment link (input: project_id, user_id, amount, currency) and notifies you by email with its checkout URL.',
    createdAt: RELEASED,
    graph: {
      trigger: { type: 'webhook' },
      nodes: [
        {
          id: 'transfer',
          type: 'transfer',
          config: {
            project_id: '{{input.project_id}}',
            user_id: '{{input.user_id}}',
            amount: '{{input.amount}}',
            currency: '{{input.currency}}',
          },
          next: 'notify',
        },
        {
          id: 'notify',
          type: 'notify',
          config: {
            subject: 'Payment link created',
            text: 'Payment {{steps.transfer.transaction_id}}: {{steps.transfer.checkout_url}}',
          },
        },
      ],
    },
  },
];

export const findTemplate = (id: string): WorkflowTemplate | undefined =>
  WORKFLOW_TEMPLATES.find((t) => t.id === id);
