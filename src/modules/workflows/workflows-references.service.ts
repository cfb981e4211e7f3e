/**
 * The ids a workflow graph stores literally in its node configs are checked when the graph is saved,
 * like any other body's ids: `{"type": "project", "config": {"project_id": "<uuid>"}}` naming another
 * client's or an unknown project is 404 `Project not found` on POST/PUT /workflows, not a failed run
 * later. Templates (`{{input.project_id}}`) are resolved when the step runs and are checked then.
 */
import type { DbOrTx } from '../../db/client';
import { notFound } from '../../shared/errors';
import { isUuid } from '../../shared/ids';
import { assertOwnedReferences, type ReferenceKind } from '../../shared/references';
import { ContractMessages } from '../contracts/contracts.messages';
import { requireFlow } from '../contracts/flows/flows.service';
import { requireTemplate } from '../contracts/templates/templates.service';
import type { Graph } from './workflows-graph.policy';

/** Config keys of each node type that hold an id of the client's resources. */
const NODE_REFERENCES: Partial<Record<string, Partial<Record<string, ReferenceKind>>>> = {
  kyc: { user_id: 'user' },
  kyb: { business_customer_id: 'business_customer' },
  transfer: { project_id: 'project', user_id: 'user', business_customer_id: 'business_customer' },
  opco: { opco_id: 'opco' },
  project: { project_id: 'project' },
};
const CUSTOMER_KEYS = { user_id: 'user', business_customer_id: 'business_customer' } as const;

type Config = Record<string, unknown>;
type Ref = readonly [ReferenceKind, string | undefined];

/** A literal id (a string without `{{…}}`); templates and absent values give undefined. */
function literal(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' && !v.includes('{{') ? v : undefined;
}

function keyedRefs(config: Config | undefined, keys: Partial<Record<string, ReferenceKind>>): Ref[] {
  return Object.entries(keys).map(([k, kind]) => [kind!, literal(config?.[k])] as const);
}

/** The contract node's config is a POST /contracts/send body: its participants and payment. */
function contractRefs(config: Config): Ref[] {
  const participants = Array.isArray(config.participants) ? (config.participants as Config[]) : [];
  const payment = (config.payment ?? undefined) as Config | undefined;
  return [
    ...participants.flatMap((p) => keyedRefs(p, CUSTOMER_KEYS)),
    ...keyedRefs(payment, { project_id: 'project', ...CUSTOMER_KEYS }),
  ];
}

/** 404 `<Resource> not found` for the first literal id in the graph that is not the client's. */
export async function assertGraphReferences(db: DbOrTx, clientId: string, graph: Graph): Promise<void> {
  for (const node of graph.nodes) {
    const config = (node.config ?? {}) as Config;
    if (node.type === 'contract') {
      const templateId = literal(config.template_id);
      if (templateId && !isUuid(templateId)) throw notFound(ContractMessages.templateNotFound);
      if (templateId) await requireTemplate(db, clientId, templateId);
      const flowId = literal(config.flow_id);
      if (flowId && !isUuid(flowId)) throw notFound(ContractMessages.flowNotFound);
      if (flowId) await requireFlow(db, clientId, flowId);
      await assertOwnedReferences(db, clientId, contractRefs(config));
      continue;
    }
    const keys = NODE_REFERENCES[node.type];
    if (keys) await assertOwnedReferences(db, clientId, keyedRefs(config, keys));
  }
}
