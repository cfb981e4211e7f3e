/** Small real files the sandbox verification provider serves as document images and scans. */

/** A real 1x1 PNG. */
const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** A minimal, valid one-page PDF showing `title`. */
export function samplePdf(title: string): Buffer {
  const text = title.replace(/[()\\]/g, '');
  const stream = `BT /F1 18 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

export function samplePng(): Buffer {
  return Buffer.from(PNG_1X1);
}

/** Document roles the sandbox produces, with their file type. */
export const SANDBOX_DOCUMENTS: Record<string, { fileName: string; contentType: string }> = {
  passport: { fileName: 'passport.png', contentType: 'image/png' },
  selfie: { fileName: 'selfie.png', contentType: 'image/png' },
  proof_of_address: { fileName: 'proof-of-address.pdf', contentType: 'application/pdf' },
  certificate_of_incorporation: {
    fileName: 'certificate-of-incorporation.pdf',
    contentType: 'application/pdf',
  },
  register_extract: { fileName: 'register-extract.pdf', contentType: 'application/pdf' },
};

export function sandboxFile(role: string): { fileName: string; contentType: string; bytes: Buffer } | null {
  const d = SANDBOX_DOCUMENTS[role];
  if (!d) return null;
  return {
    ...d,
    bytes: d.contentType === 'image/png' ? samplePng() : samplePdf(`Sandbox ${role.replace(/_/g, ' ')}`),
  };
}
