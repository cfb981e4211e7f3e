/** Documenso mapping: fields in percent, recipients matched back (one person in two roles told apart by their fields), the snapshot. */
import { describe, expect, it } from 'vitest';
import {
  createPayload,
  type DocumensoEnvelope,
  extraActingRecipients,
  matchRecipients,
  snapshotOf,
} from '../../../src/providers/esign/documenso/mapping';
import type { EnvelopeField, EnvelopeInput } from '../../../src/providers/esign/port';

const field = (
  role: string,
  page: number,
  x: number,
  type: EnvelopeField['type'] = 'signature',
): EnvelopeField => ({
  fieldId: `${role}_${type}`,
  role,
  type,
  page,
  x,
  y: 0.5,
  width: 0.2,
  height: 0.05,
  required: true,
  label: null,
  prefill: null,
});

const input: EnvelopeInput = {
  requestId: 'req-1',
  title: 'Lease',
  documents: [
    { fileName: 'a.pdf', sha256: 'x', content: Buffer.from('%PDF-'), fields: [field('tenant', 1, 0.1)] },
    {
      fileName: 'b.pdf',
      sha256: 'y',
      content: Buffer.from('%PDF-'),
      fields: [field('guarantor', 2, 0.6), field('guarantor', 1, 0.1, 'checkbox')],
    },
  ],
  // One person signs as tenant and as guarantor in the same group.
  participants: [
    {
      participantId: 'p1',
      role: 'tenant',
      kind: 'signer',
      signingOrder: 1,
      name: 'Ann',
      email: 'Ann@Example.com',
    },
    {
      participantId: 'p2',
      role: 'guarantor',
      kind: 'signer',
      signingOrder: 1,
      name: 'Ann',
      email: 'ann@example.com',
    },
  ],
  cc: [],
  redirectUrl: 'https://merchant.example.com/done?x=1',
};

describe('Documenso mapping', () => {
  it('places every field on its file in percent and sends no Documenso email', () => {
    const p = createPayload(input) as { recipients: { fields: unknown[] }[]; meta: Record<string, unknown> };
    expect(p.recipients[1]!.fields).toEqual([
      expect.objectContaining({
        identifier: 1,
        type: 'SIGNATURE',
        page: 2,
        positionX: 60,
        positionY: 50,
        width: 20,
        height: 5,
      }),
      expect.objectContaining({
        identifier: 1,
        type: 'CHECKBOX',
        fieldMeta: { type: 'checkbox', required: true, values: [{ id: 1, checked: false, value: 'Yes' }] },
      }),
    ]);
    expect(p.meta).toEqual({
      distributionMethod: 'NONE',
      signingOrder: 'PARALLEL',
      // Documenso never expires the links before our own expiry (up to 365 days).
      envelopeExpirationPeriod: { disabled: true },
      redirectUrl: 'https://merchant.example.com/done?x=1&contract_request_id=req-1',
    });
  });

  it('tells one person in two roles apart by where their fields are, whatever order Documenso lists them in', () => {
    const recipient = (id: number) => ({
      id,
      envelopeId: 'envelope_1',
      email: 'ann@example.com',
      name: 'Ann',
      token: `t${id}`,
      role: 'SIGNER',
      signingOrder: 1,
      readStatus: 'NOT_OPENED' as const,
      signingStatus: 'NOT_SIGNED' as const,
      signedAt: null,
      rejectionReason: null,
    });
    const env: DocumensoEnvelope = {
      id: 'envelope_1',
      status: 'PENDING',
      externalId: 'req-1',
      recipients: [recipient(8), recipient(7)],
      fields: [
        {
          recipientId: 8,
          envelopeItemId: 'i2',
          type: 'SIGNATURE',
          page: 2,
          positionX: '60',
          positionY: '50',
        },
        { recipientId: 8, envelopeItemId: 'i2', type: 'CHECKBOX', page: 1, positionX: '10', positionY: '50' },
        {
          recipientId: 7,
          envelopeItemId: 'i1',
          type: 'SIGNATURE',
          page: 1,
          positionX: '10',
          positionY: '50',
        },
      ],
      envelopeItems: [],
    };
    expect(matchRecipients(input, env)).toEqual([
      { participantId: 'p1', ref: '7' },
      { participantId: 'p2', ref: '8' },
    ]);
    expect(matchRecipients(input, { ...env, recipients: [recipient(7)] })).toBeNull();
    // A team's default recipient added by Documenso: an acting one is reported, a CC is not.
    const matched = matchRecipients(input, env)!;
    const extra = { ...recipient(9), email: 'legal@example.com' };
    expect(extraActingRecipients({ ...env, recipients: [...env.recipients, extra] }, matched)).toEqual([
      extra,
    ]);
    expect(
      extraActingRecipients({ ...env, recipients: [...env.recipients, { ...extra, role: 'CC' }] }, matched),
    ).toEqual([]);
  });

  it('the snapshot: opened, signed, rejected with its reason, expiresAt; a CC (our viewer) only opens, never "signs"', () => {
    const base = {
      envelopeId: 'e',
      email: 'a@b.c',
      name: 'A',
      token: 't',
      signingOrder: 1,
      readStatus: 'OPENED' as const,
    };
    const snap = snapshotOf({
      id: 'e',
      status: 'REJECTED',
      externalId: null,
      fields: [],
      envelopeItems: [],
      recipients: [
        {
          ...base,
          id: 1,
          role: 'SIGNER',
          signingStatus: 'SIGNED',
          signedAt: '2026-11-29T10:00:00.000Z',
          rejectionReason: null,
          expiresAt: '2027-02-28T10:00:00.000Z',
        },
        {
          ...base,
          id: 2,
          role: 'APPROVER',
          signingStatus: 'REJECTED',
          signedAt: null,
          rejectionReason: 'No',
        },
        { ...base, id: 3, role: 'CC', signingStatus: 'SIGNED', signedAt: null, rejectionReason: null },
      ],
    });
    expect(snap).toEqual({
      ref: 'e',
      status: 'rejected',
      recipients: [
        {
          ref: '1',
          viewed: true,
          completed: true,
          completedAt: new Date('2026-11-29T10:00:00.000Z'),
          declined: false,
          declineReason: null,
          expiresAt: new Date('2027-02-28T10:00:00.000Z'),
        },
        {
          ref: '2',
          viewed: true,
          completed: false,
          completedAt: null,
          declined: true,
          declineReason: 'No',
          expiresAt: null,
        },
        {
          ref: '3',
          viewed: true,
          completed: false,
          completedAt: null,
          declined: false,
          declineReason: null,
          expiresAt: null,
        },
      ],
    });
  });
});
