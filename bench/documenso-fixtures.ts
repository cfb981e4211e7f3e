/** The bench's envelope: two signers with a signature field each on a two-page PDF, as the port takes it. */
import { multipartBody } from '../src/providers/esign/documenso/client';
import { createPayload as documensoPayload } from '../src/providers/esign/documenso/mapping';
import type { EnvelopeInput } from '../src/providers/esign/port';

export function createPayload(tag: string, content: Buffer): EnvelopeInput {
  const sig = (role: string, x: number) => ({
    fieldId: `${role}_sig`,
    role,
    type: 'signature' as const,
    page: 2,
    x,
    y: 0.8,
    width: 0.3,
    height: 0.05,
    required: true,
    label: null,
    prefill: null,
  });
  return {
    requestId: tag,
    title: `Bench agreement ${tag}`,
    documents: [
      { fileName: 'bench.pdf', sha256: 'x', content, fields: [sig('client', 0.1), sig('company', 0.55)] },
    ],
    participants: [
      {
        participantId: `${tag}-1`,
        role: 'client',
        kind: 'signer',
        signingOrder: 1,
        name: 'Cleo',
        email: `cleo-${tag}@example.com`,
      },
      {
        participantId: `${tag}-2`,
        role: 'company',
        kind: 'signer',
        signingOrder: 2,
        name: 'Cory',
        email: `cory-${tag}@example.com`,
      },
    ],
    cc: [],
    redirectUrl: null,
  };
}

/** The multipart body the adapter sends for `input` (the raw floor sends the same bytes). */
export function multipartBodyFor(input: EnvelopeInput) {
  return multipartBody(
    { payload: JSON.stringify(documensoPayload(input)) },
    input.documents.map((d) => ({
      name: 'files',
      fileName: d.fileName,
      contentType: 'application/pdf',
      content: d.content,
    })),
  );
}
