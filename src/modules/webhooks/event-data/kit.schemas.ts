/** Small TypeBox helpers for the event `data` schemas (every field is always sent; null where it can be). */
import { type TSchema, Type } from 'typebox';

export const Uuid = (description?: string) =>
  Type.String({ format: 'uuid', ...(description ? { description } : {}) });
export const DateTime = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });
export const Decimal = (description = 'Decimal string') => Type.String({ description });
export const Enum = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Enum(values, description ? { description } : {});
/** `T` or null. */
export const N = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** Who made a change: the client's team (`client_user`, `client_api`), staff, or null when automatic. */
export const ActorType = N(
  Type.Enum(['client_user', 'client_api', 'service_internal'] as const, {
    description:
      '`client_user` or `client_api` for the client team, `service_internal` for staff; null when automatic',
  }),
);

/**
 * An event's `data`: every property listed is always sent (so all are required); receivers must
 * accept properties added later (`additionalProperties` is not closed).
 */
export function eventData<P extends Record<string, TSchema>>(description: string, properties: P) {
  return Type.Object(properties, { description });
}

/** The schema of one event type's data with the example the document shows. */
export interface EventDataEntry {
  schema: TSchema;
  example: Record<string, unknown>;
}

/** Example ids and times, shared so the examples read as one story. */
export const EX = {
  client: '0190f5f4-1c2b-7a3e-9d41-2b7c8e5a1f00',
  transaction: '0190f5f4-2d3c-7b4f-8e52-3c8d9f6b2a11',
  user: '0190f5f4-3e4d-7c50-9f63-4d9e0a7c3b22',
  business: '0190f5f4-4f5e-7d61-8a74-5eaf1b8d4c33',
  project: '0190f5f4-5a6f-7e72-9b85-6fb02c9e5d44',
  opco: '0190f5f4-6b70-7f83-8c96-70c13daf6e55',
  account: '0190f5f4-7c81-7094-9da7-81d24eb07f66',
  request: '0190f5f4-8d92-71a5-8eb8-92e35fc18077',
  flow: '0190f5f4-9ea3-72b6-9fc9-a3f460d29188',
  template: '0190f5f4-afb4-73c7-80da-b405710a0299',
  participant: '0190f5f4-b0c5-74d8-91eb-c5168211b3aa',
  document: '0190f5f4-c1d6-75e9-82fc-d627932c4bbb',
  run: '0190f5f4-d2e7-76fa-930d-e738a43d5ccc',
  definition: '0190f5f4-e3f8-770b-841e-f849b54e6ddd',
  id1: '0190f5f4-f409-781c-952f-095ac65f7eee',
  id2: '0190f5f5-051a-792d-8630-1a6bd7608fff',
  at: '2026-11-27T10:15:30.000Z',
  at2: '2026-11-27T10:20:00.000Z',
} as const;
