/**
 * Renders an invoice PDF with pdf-lib, once, at finalization (the bytes are then stored immutably).
 * The standard Helvetica font covers WinAnsi (Latin-1 and a few more); any other character is
 * replaced by its accent-free form or '?', so an exotic company name can never break finalization.
 */
import type { PDFFont, PDFPage } from 'pdf-lib';
import type { InvoiceBillingDetails, InvoicePaymentInstructions } from '../../db/schema/index';

export interface PdfInvoice {
  number: string;
  issueDate: string;
  dueDate: string;
  periodStart: string;
  periodEnd: string;
  currency: string;
  subtotal: string;
  taxTotal: string;
  total: string;
  purchaseOrderNumber: string | null;
  billingDetails: InvoiceBillingDetails;
  paymentInstructions: InvoicePaymentInstructions;
  payeeName: string;
  lines: { description: string; quantity: number; unitAmount: string; taxRate: string; amount: string }[];
  /** Sandbox deployments: a diagonal SANDBOX watermark on every page. */
  watermark: boolean;
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;

function encodable(font: PDFFont): (text: string) => string {
  const supported = new Set(font.getCharacterSet());
  return (text) =>
    [...text]
      .map((ch) => {
        if (supported.has(ch.codePointAt(0)!)) return ch;
        const plain = ch.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
        return [...plain].every((c) => supported.has(c.codePointAt(0)!)) && plain !== '' ? plain : '?';
      })
      .join('');
}

export async function renderInvoicePdf(inv: PdfInvoice): Promise<Buffer> {
  // Loaded on first use: pdf-lib stays out of the memory of a node that never renders a PDF.
  const { degrees, PDFDocument, rgb, StandardFonts } = await import('pdf-lib');
  const doc = await PDFDocument.create();
  doc.setTitle(`Invoice ${inv.number}`);
  doc.setAuthor(inv.payeeName);
  doc.setCreator('Payments Platform');
  doc.setProducer('pdf-lib');
  // A fixed date keeps the rendering a pure function of the invoice.
  doc.setCreationDate(new Date(`${inv.issueDate}T00:00:00Z`));
  doc.setModificationDate(new Date(`${inv.issueDate}T00:00:00Z`));
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const safe = encodable(font);

  let page: PDFPage = doc.addPage(A4);
  let y = A4[1] - MARGIN;
  const text = (s: string, x: number, opts: { size?: number; f?: PDFFont; right?: boolean } = {}) => {
    const size = opts.size ?? 10;
    const f = opts.f ?? font;
    const t = safe(s);
    const at = opts.right ? x - f.widthOfTextAtSize(t, size) : x;
    page.drawText(t, { x: at, y, size, font: f, color: rgb(0.1, 0.1, 0.1) });
  };
  const newLine = (h = 14) => {
    y -= h;
    if (y < MARGIN + 60) {
      page = doc.addPage(A4);
      y = A4[1] - MARGIN;
    }
  };

  text(inv.payeeName, MARGIN, { size: 12, f: bold });
  text('INVOICE', A4[0] - MARGIN, { size: 20, f: bold, right: true });
  newLine(26);
  text(`Invoice number: ${inv.number}`, MARGIN, { f: bold });
  newLine();
  text(`Issue date: ${inv.issueDate}    Due date: ${inv.dueDate}`, MARGIN);
  newLine();
  text(`Service period: ${inv.periodStart} to ${inv.periodEnd}`, MARGIN);
  if (inv.purchaseOrderNumber) {
    newLine();
    text(`Purchase order: ${inv.purchaseOrderNumber}`, MARGIN);
  }
  newLine(24);
  text('Bill to', MARGIN, { f: bold });
  const d = inv.billingDetails;
  const address = d.address
    ? [
        d.address.line1,
        d.address.line2,
        [d.address.postal_code, d.address.city].filter(Boolean).join(' '),
        d.address.region,
        d.address.country,
      ]
    : [];
  for (const l of [
    d.company_name,
    ...address,
    d.vat_number ? `VAT ${d.vat_number}` : null,
    d.billing_email,
  ]) {
    if (!l) continue;
    newLine();
    text(l, MARGIN);
  }

  newLine(28);
  const cols = { qty: 330, unit: 400, tax: 455, amount: A4[0] - MARGIN };
  text('Description', MARGIN, { f: bold });
  text('Qty', cols.qty, { f: bold, right: true });
  text('Unit', cols.unit, { f: bold, right: true });
  text('Tax %', cols.tax, { f: bold, right: true });
  text(`Amount (${inv.currency})`, cols.amount, { f: bold, right: true });
  for (const l of inv.lines) {
    newLine(16);
    text(l.description.length > 48 ? `${l.description.slice(0, 47)}…` : l.description, MARGIN);
    text(String(l.quantity), cols.qty, { right: true });
    text(l.unitAmount, cols.unit, { right: true });
    text(l.taxRate, cols.tax, { right: true });
    text(l.amount, cols.amount, { right: true });
  }
  newLine(24);
  text('Subtotal', cols.tax, { right: true });
  text(`${inv.currency} ${inv.subtotal}`, cols.amount, { right: true });
  newLine();
  text('Tax', cols.tax, { right: true });
  text(`${inv.currency} ${inv.taxTotal}`, cols.amount, { right: true });
  newLine(16);
  text('Total', cols.tax, { f: bold, right: true });
  text(`${inv.currency} ${inv.total}`, cols.amount, { f: bold, right: true });

  newLine(32);
  text('Payment by bank transfer', MARGIN, { f: bold });
  const p = inv.paymentInstructions;
  for (const l of [
    `Payee: ${p.payee_name ?? 'not configured'}`,
    `IBAN: ${p.iban ?? 'not configured'}`,
    `BIC: ${p.bic ?? 'not configured'}`,
    `Reference: ${p.reference ?? inv.number}`,
  ]) {
    newLine();
    text(l, MARGIN);
  }
  newLine(20);
  text(`Please pay ${inv.currency} ${inv.total} by ${inv.dueDate}, quoting ${inv.number}.`, MARGIN);

  if (inv.watermark) {
    for (const pg of doc.getPages()) {
      pg.drawText('SANDBOX', {
        x: 120,
        y: 300,
        size: 96,
        font: bold,
        color: rgb(0.85, 0.2, 0.2),
        opacity: 0.18,
        rotate: degrees(35),
      });
    }
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}
