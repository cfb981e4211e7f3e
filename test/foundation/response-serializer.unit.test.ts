/**
 * The response serializers are compiled from rewritten copies of the response schemas (nullable
 * scalar unions as nullable types, any-key records as additionalProperties): same JSON for the
 * same data, and the route schemas themselves (validation, OpenAPI) untouched.
 */
import fastJsonStringify from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { TransactionListSchema, TransactionSchema } from '../../src/modules/payments/payments.schemas';
import { serializerSchema } from '../../src/plugins/response-serializer';

const ID = '0ba31e5f-04bd-4270-a397-56e088d2b2ab';

function transaction(i: number) {
  const odd = i % 2 === 1;
  return {
    transaction_id: ID,
    ref_id: `ref_${i}`,
    transfer_id: odd ? null : 'tr_1',
    amount: '10.00',
    currency: 'EUR',
    user_id: odd ? null : ID,
    business_customer_id: odd ? ID : null,
    project_id: ID,
    contract_request_id: null,
    status: 'pending',
    provider_status: odd ? null : 'initiated',
    reconciliation_state: 'none',
    status_reason: odd ? 'a "quoted" reason\n' : null,
    description: odd ? null : 'd \u2028 ü',
    metadata: odd ? {} : { order: 7, nested: { a: [1, 'x', null] }, 'key with space': true },
    origin: { type: 'paylink', id: odd ? ID : null },
    checkout_url: 'http://localhost/checkout/t',
    redirect_url: null,
    expires_at: '2026-01-01T00:00:00.000Z',
    completed_at: odd ? null : '2026-01-02T00:00:00.000Z',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    refunded_amount: odd ? '0.00' : '1.25',
    refundable_amount: odd ? '10.00' : '8.75',
    allowed_actions: odd ? [] : ['cancel', 'simulate'],
    not_in_schema: 'dropped',
  };
}

describe('response serializer schemas', () => {
  it('serialize a transaction list exactly as the schema as written', () => {
    const asWritten = fastJsonStringify(TransactionListSchema as never);
    const rewritten = fastJsonStringify(serializerSchema(TransactionListSchema) as never);
    const doc = {
      transactions: Array.from({ length: 6 }, (_, i) => transaction(i)),
      pagination: { total: 6, page: 1, page_size: 10, total_pages: 1 },
    };
    expect(rewritten(doc)).toBe(asWritten(doc));
    expect(JSON.parse(rewritten(doc)).transactions[0]).not.toHaveProperty('not_in_schema');
  });

  it('rewrite nullable scalars and any-key records only, leaving the schema itself alone', () => {
    const before = JSON.stringify(TransactionSchema);
    const s = serializerSchema(TransactionSchema) as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(s.properties.transfer_id).toMatchObject({ type: 'string', nullable: true });
    expect(s.properties.transfer_id).not.toHaveProperty('anyOf');
    expect(s.properties.user_id).toMatchObject({ type: 'string', format: 'uuid', nullable: true });
    expect(s.properties.metadata).toEqual({ type: 'object', additionalProperties: true });
    expect(s.properties.amount).toMatchObject({ type: 'string' });
    expect(s.properties.amount).not.toHaveProperty('nullable');
    expect(JSON.stringify(TransactionSchema)).toBe(before);
  });

  it('leave unions of objects and of more than two branches as unions', () => {
    const objectOrNull = { anyOf: [{ type: 'object', properties: {} }, { type: 'null' }] };
    const three = { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] };
    expect(serializerSchema(objectOrNull)).toEqual(objectOrNull);
    expect(serializerSchema(three)).toEqual(three);
  });
});
