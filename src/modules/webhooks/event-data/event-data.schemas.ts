/**
 * The `data` of every event type as TypeBox schemas, with an example each: the OpenAPI document's
 * `webhooks` section is built from these (src/plugins/openapi-documents.ts), and the tests validate
 * the examples and real deliveries against that document.
 */
import type { Type } from 'typebox';
import type { AnyEventType } from '../../../outbox/event-types';
import { CONTRACT_WORKFLOW_EVENT_DATA } from './contracts-workflows.schemas';
import { CORE_EVENT_DATA } from './core.schemas';
import type { EventDataEntry } from './kit.schemas';
import { NAMED_AREA_EVENT_DATA } from './named-areas.schemas';
import { REFUND_EVENT_DATA } from './refunds.schemas';

export type { EventDataEntry } from './kit.schemas';

type Entries = typeof CORE_EVENT_DATA &
  typeof CONTRACT_WORKFLOW_EVENT_DATA &
  typeof NAMED_AREA_EVENT_DATA &
  typeof REFUND_EVENT_DATA;
/**
 * The fields of an event type's `data`, by name, as its schema lists them: `emitEvent` takes exactly
 * these keys (a missing or an undocumented field does not compile); the tests check the values.
 */
export type EventFields<T extends AnyEventType> = {
  [K in keyof Type.Static<Entries[T]['schema']>]-?: unknown;
};

export const EVENT_DATA: Readonly<Record<AnyEventType, EventDataEntry>> = {
  ...CORE_EVENT_DATA,
  ...CONTRACT_WORKFLOW_EVENT_DATA,
  ...NAMED_AREA_EVENT_DATA,
  ...REFUND_EVENT_DATA,
};

/** `payment.status_changed` -> `PaymentStatusChangedData` (the component schema's name). */
export const eventDataSchemaName = (type: string) =>
  `${type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Data`;
