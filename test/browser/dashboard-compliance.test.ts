/**
 * The dashboard pages of issue 19 in headless Chromium against the real service: contracts (send
 * from an uploaded PDF, sandbox signing through the simulator, the signed PDF download), bulk
 * payment links (upload, the API's preview with row errors, confirm, progress, rows, results file)
 * and travel rule (list filters in the URL, detail, proceed, tx hash, repair, inbound review). Data
 * is created through the API; each page is checked with axe-core and screenshotted at 390 px.
 */
import fs from 'node:fs';
import { eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { accounts } from '../../src/db/schema/index';
import { runBulkWorker } from '../../src/modules/bulk-links/bulk.worker';
import { makePdf, TWO_SIGNERS } from '../contracts/fixtures';
import { loginOk, type Session } from '../helpers/auth-flow';
import { hasChromium } from '../helpers/browser';
import { createTestClient } from '../helpers/clients';
import { expectAccessible, screenshots } from '../helpers/dashboard';
import { dashboardSuite, heading1 } from '../helpers/dashboard-suite';
import { insertOpco, insertProject, insertUser } from '../payments/fixtures';
import { evm, SANDBOX_VASP_IDS, transferBody } from '../travel-rule/fixtures';

describe.skipIf(!hasChromium)('dashboard: contracts, bulk payment links, travel rule', () => {
  const suite = dashboardSuite();
  let session: Session;

  beforeAll(async () => {
    session = await loginOk(suite.ctx, suite.owner.email, suite.owner.password);
  }, 60_000);

  const api = async (method: 'POST' | 'PUT', url: string, payload?: object) => {
    const res = await suite.ctx.app.inject({
      method,
      url: `/api/v1${url}`,
      headers: session.headers,
      payload,
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };

  /** A phone-sized page signed in at `path` (the owner unless `email` is given). */
  const signedIn = (path: string, heading: string, email?: string) =>
    suite.signedIn(path, heading, { email, viewport: { width: 390, height: 800 } });

  const go = async (page: Page, label: string, heading: string) => {
    await page.getByRole('button', { name: 'Menu' }).click();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: label, exact: true })
      .click();
    await heading1(page, heading);
  };

  it('contracts: sends an uploaded PDF, signs it through the sandbox simulator, downloads the signed PDF', async () => {
    const { page, context } = await signedIn('/contracts', 'Contracts');
    await page.getByText('No contracts yet.').waitFor();
    // An empty area says what it is for and links its guide.
    expect(await page.getByRole('link', { name: 'Contracts guide' }).getAttribute('href')).toBe(
      '/docs/guides/contracts',
    );
    await expectAccessible(page, 'contracts');
    await page.getByRole('link', { name: 'Send a contract' }).click();
    await heading1(page, 'Send a contract');
    // No template to choose from: the form starts on an uploaded PDF.
    await expect.poll(() => page.getByLabel('Document').inputValue()).toBe('upload');
    await page.getByLabel('PDF file').setInputFiles({
      name: 'nda.pdf',
      mimeType: 'application/pdf',
      buffer: Buffer.from(await makePdf(2, 'Mutual NDA'), 'base64'),
    });
    await page.getByLabel('Title').fill('Mutual NDA');
    await page.getByLabel('Name (signer)').fill('Sam Signer');
    await page.getByLabel('Email (signer)').fill('sam@example.com');
    await expectAccessible(page, 'send a contract');
    // The API's own message: the signature page is outside the two-page document.
    await page.getByLabel('Signature on page').fill('3');
    await page.getByRole('button', { name: 'Send contract' }).click();
    await page.getByRole('alert').filter({ hasText: /page/i }).waitFor();
    await page.getByLabel('Signature on page').fill('2');
    await page.getByRole('button', { name: 'Send contract' }).click();
    await heading1(page, 'Mutual NDA');
    await page.getByRole('link', { name: 'Signing page of Sam Signer' }).waitFor();
    expect(await page.getByRole('link', { name: 'Signing page of Sam Signer' }).getAttribute('href')).toMatch(
      new RegExp(`^${suite.base}/sign/`),
    );
    await page.getByRole('button', { name: 'Download PDF: nda.pdf' }).waitFor();
    await expectAccessible(page, 'contract (sent)');
    await shots(page, 'contract-sent');

    await page.getByRole('button', { name: 'Simulate signing by Sam Signer' }).click();
    await page.getByRole('button', { name: 'Download certificate of completion' }).waitFor();
    await expect(page.locator('.facts .badge').first().textContent()).resolves.toBe('completed');
    await page.getByRole('listitem').filter({ hasText: 'participant.completed' }).first().waitFor();
    expect(await page.getByRole('button', { name: 'Void contract' }).count()).toBe(0);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: /^Download signed PDF/ }).click(),
    ]);
    expect(
      fs
        .readFileSync(await download.path())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    await expectAccessible(page, 'contract (completed)');
    await shots(page, 'contract-completed');

    // A second one is voided with a reason; the list filters by status in the URL.
    const file = { file_name: 'b.pdf', content_base64: await makePdf(1, 'Order form') };
    await api('POST', '/contracts/send', {
      document: {
        ...file,
        roles: [{ role: 'buyer', kind: 'signer' }],
        fields: [
          {
            field_id: 's',
            role: 'buyer',
            type: 'signature',
            page: 1,
            x: 0.1,
            y: 0.8,
            width: 0.3,
            height: 0.05,
          },
        ],
      },
      title: 'Order form',
      participants: [{ role: 'buyer', name: 'Bea Buyer', email: 'bea@example.com' }],
    });
    await go(page, 'Contracts', 'Contracts');
    await page.getByRole('link', { name: 'Order form' }).click();
    await heading1(page, 'Order form');
    await page.getByLabel('Reason').fill('Sent by mistake');
    await page.getByRole('button', { name: 'Void contract' }).click();
    await page.getByText('Sent by mistake').waitFor();
    await go(page, 'Contracts', 'Contracts');
    await page.getByLabel('Status').selectOption('voided');
    await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBe('voided');
    await page.getByRole('link', { name: 'Order form' }).waitFor();
    // The URL changes before the filtered list replaces the unfiltered one.
    await expect.poll(() => page.getByRole('link', { name: 'Mutual NDA' }).count()).toBe(0);
    await expectAccessible(page, 'contracts filtered');
    // From a template: one participant per role, invited in signing order.
    await api('POST', '/contracts/templates', {
      name: 'Service agreement',
      document: { file_name: 'agreement.pdf', content_base64: await makePdf() },
      ...TWO_SIGNERS,
    });
    await go(page, 'Contracts', 'Contracts');
    await page.getByRole('link', { name: 'Send a contract' }).click();
    await expect(page.getByLabel('Template').locator('option:checked').textContent()).resolves.toBe(
      'Service agreement',
    );
    for (const [role, name] of [
      ['client', 'Cleo Client'],
      ['company', 'Cory Company'],
    ]) {
      await page.getByLabel(`Name (${role})`).fill(name!);
      await page.getByLabel(`Email (${role})`).fill(`${role}@example.com`);
    }
    await page.getByRole('button', { name: 'Send contract' }).click();
    await heading1(page, 'Service agreement');
    await page.getByRole('heading', { name: 'Cory Company waiting' }).waitFor();
    await page.getByRole('link', { name: 'Signing page of Cleo Client' }).waitFor();
    expect(await page.getByRole('link', { name: 'Signing page of Cory Company' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Send reminder' }).click();
    await page.getByRole('status').filter({ hasText: 'Reminder sent' }).waitFor();
    await page.goto(`${suite.base}/dashboard/contracts/00000000-0000-4000-8000-000000000000`);
    await page.getByRole('alert').filter({ hasText: 'not found' }).waitFor();
    await context.close();
  }, 120_000);

  it('bulk payment links: upload, the preview with row errors, confirm, progress and rows, results file', async () => {
    const projectId = await insertProject(
      suite.ctx,
      suite.owner.clientId,
      await insertOpco(suite.ctx, suite.owner.clientId),
    );
    const userId = await insertUser(suite.ctx, suite.owner.clientId);
    await api('PUT', '/auth/client/settings', { callback_url: 'https://shop.example.com/return' });
    const csv = [
      'amount,currency,user_id,reference,description',
      `10.00,EUR,${userId},inv-1,First`,
      `12.50,EUR,${userId},inv-2,Second`,
      `ten,EUR,${userId},inv-3,Third`,
    ].join('\n');
    const { page, context } = await signedIn('/bulk-links', 'Bulk payment links');
    await page.getByText('No bulk uploads yet.').waitFor();
    await expectAccessible(page, 'bulk uploads');
    await page.getByRole('link', { name: 'Upload a file' }).click();
    await heading1(page, 'Upload payment links');
    const [template] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the CSV template' }).click(),
    ]);
    expect(fs.readFileSync(await template.path(), 'utf8')).toMatch(/^\uFEFF?amount,/);
    await page.getByLabel('File (CSV or XLSX)').setInputFiles({
      name: 'march.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    });
    await expect(page.getByLabel('Default project').inputValue()).resolves.toBe(projectId);
    await expectAccessible(page, 'upload payment links');
    await page.getByRole('button', { name: 'Check the file' }).click();

    // The preview: nothing created yet, every row with its status, the invalid one with its error.
    await heading1(page, 'Check the upload');
    await page.getByText('2 valid, 1 invalid of 3').waitFor();
    await page.getByRole('row').filter({ hasText: '#3' }).filter({ hasText: 'amount' }).waitFor();
    expect(await page.getByRole('button', { name: 'Download results (CSV)' }).count()).toBe(0);
    await expectAccessible(page, 'bulk preview');
    await shots(page, 'bulk-preview');
    await page.getByRole('button', { name: 'Create 2 payment links' }).click();
    await page.getByTestId('job-status').filter({ hasText: 'queued' }).waitFor();

    // The worker runs; the page follows the job until it is final.
    for (let i = 0; i < 5 && (await runBulkWorker(suite.ctx.deps)) > 0; i++);
    await page.getByTestId('job-status').filter({ hasText: 'completed_with_errors' }).waitFor();
    await page.getByText('2 created, 0 failed, 1 invalid of 3').waitFor();
    await page.getByRole('link', { name: 'Checkout link of row 1' }).waitFor();
    await page.getByLabel('Row status').selectOption('invalid');
    await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBe('invalid');
    await expect.poll(() => page.getByRole('row').count()).toBe(2);
    await expectAccessible(page, 'bulk job');
    await shots(page, 'bulk-job');
    const [results] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download results (CSV)' }).click(),
    ]);
    const text = fs.readFileSync(await results.path(), 'utf8');
    expect(text).toContain('inv-1');
    expect(text).toContain('created');
    const [failedRows] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download failed and invalid rows (CSV)' }).click(),
    ]);
    const failed = fs.readFileSync(await failedRows.path(), 'utf8');
    expect(failed).toContain('inv-3');
    expect(failed).not.toContain('inv-1');
    // The invalid row corrected from its error and retried: the job completes.
    await expect(page.getByLabel('amount of row 3').inputValue()).resolves.toBe('ten');
    await page.getByLabel('amount of row 3').fill('15.00');
    await page.getByRole('button', { name: 'Fix and retry row 3' }).click();
    await page.getByTestId('job-status').filter({ hasText: 'processing' }).waitFor();
    for (let i = 0; i < 5 && (await runBulkWorker(suite.ctx.deps)) > 0; i++);
    await page
      .getByTestId('job-status')
      .filter({ hasText: /^completed$/ })
      .waitFor();
    await page.getByText('3 created, 0 failed, 0 invalid of 3').waitFor();
    await go(page, 'Bulk payment links', 'Bulk payment links');
    await page.getByRole('link', { name: 'march.csv' }).waitFor();
    await context.close();
  }, 120_000);

  it('travel rule: list filters in the URL, detail, proceed and tx hash, repair, inbound review', async () => {
    await api('PUT', '/travel-rule/settings', { originator_vasp: { name: 'Acme VASP', country: 'DE' } });
    const offline = await api('POST', '/travel-rule/transfers', {
      ...transferBody(evm('2222')),
      client_reference: 'tr-offline',
    });
    expect(offline.status).toBe('counterparty_not_reachable');
    const silent = await api('POST', '/travel-rule/transfers', {
      ...transferBody(evm('abc1'), { beneficiary_vasp_id: SANDBOX_VASP_IDS.silent }),
      client_reference: 'tr-repair',
    });
    await api('POST', `/sandbox/travel-rule/transfers/${silent.transfer_id}/simulate`, {
      action: 'request_repair',
      repair_fields: ['beneficiary.last_name', 'originator.address'],
    });
    const inbound = await api('POST', '/sandbox/travel-rule/inbound', {
      asset: 'BTC',
      chain: 'ethereum',
      amount: '0.1',
      fiat_value: { amount: '9000.00', currency: 'EUR' },
      originator: {
        type: 'legal',
        legal_name: 'Orig GmbH',
        account_number: 'o',
        national_identifier: { type: 'LEI', value: 'X', country: 'DE' },
      },
      beneficiary: { type: 'legal', legal_name: 'Nobody Ltd', account_number: 'b' },
      beneficiary_address: evm('abcf'),
    });
    expect(inbound.status).toBe('awaiting_review');

    const { page, context } = await signedIn('/travel-rule', 'Travel rule');
    await page.getByRole('link', { name: 'tr-offline' }).waitFor();
    await page.getByLabel('Direction').selectOption('inbound');
    await expect.poll(() => new URL(page.url()).searchParams.get('direction')).toBe('inbound');
    await expect.poll(() => page.getByRole('link', { name: 'tr-offline' }).count()).toBe(0);
    await page.getByLabel('Status').selectOption('awaiting_review');
    expect(new URL(page.url()).searchParams.get('direction')).toBe('inbound');
    await expectAccessible(page, 'travel rule');
    await shots(page, 'travel-rule');

    // Inbound review: reject with a reason.
    await page.getByRole('row').filter({ hasText: 'Orig GmbH' }).getByRole('link').click();
    await heading1(page, /^Transfer /);
    await page.getByRole('button', { name: 'Accept transfer' }).waitFor();
    await expectAccessible(page, 'inbound transfer');
    await page.getByLabel('Reason').fill('Unknown originator');
    await page.getByRole('button', { name: 'Reject transfer' }).click();
    await page.locator('.facts .badge').filter({ hasText: 'rejected' }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel transfer' }).count()).toBe(0);

    // Not reachable: proceed with a justification, then report the tx hash.
    await page.goto(`${suite.base}/dashboard/travel-rule?q=tr-offline`);
    await page.getByRole('link', { name: 'tr-offline' }).click();
    await heading1(page, 'Transfer tr-offline');
    // The API's own message for a justification that is too short.
    await page.getByLabel('Justification').fill('short');
    await page.getByRole('button', { name: 'Proceed' }).click();
    await page.getByRole('alert').filter({ hasText: 'justification' }).waitFor();
    await page.getByLabel('Justification').fill('Long-standing customer, wallet verified by phone.');
    await page.getByRole('button', { name: 'Proceed' }).click();
    await page.locator('.facts .badge').filter({ hasText: 'accepted' }).waitFor();
    await page.getByLabel('Transaction hash').fill(`0x${'ab'.repeat(32)}`);
    await page.getByRole('button', { name: 'Save transaction hash' }).click();
    await page.locator('.facts .badge').filter({ hasText: 'completed' }).waitFor();
    await page.getByText(`0x${'ab'.repeat(32)}`).waitFor();
    await expectAccessible(page, 'completed transfer');

    // Needs repair: the asked-for fields, an object one by its parts, prefilled; sent again.
    await page.goto(`${suite.base}/dashboard/travel-rule/${silent.transfer_id}`);
    await heading1(page, 'Transfer tr-repair');
    await expect(page.getByLabel('originator.address.city').inputValue()).resolves.toBe('Berlin');
    await page.getByLabel('beneficiary.last_name').fill('Receiver-Smith');
    await expectAccessible(page, 'transfer to repair');
    await shots(page, 'travel-rule-repair');
    await page.getByRole('button', { name: 'Send corrected data' }).click();
    await page.locator('.facts .badge').filter({ hasText: 'awaiting_counterparty' }).waitFor();
    await page.getByText('Bob Receiver-Smith').waitFor();
    // Cancel is offered while the transfer is live.
    await page.getByRole('button', { name: 'Cancel transfer' }).click();
    await page.locator('.facts .badge').filter({ hasText: 'canceled' }).waitFor();
    await context.close();
  }, 120_000);

  it('a developer reads contracts and bulk uploads but is offered no send, upload or travel rule', async () => {
    const dev = await createTestClient(suite.ctx, { clientId: suite.owner.clientId, role: 'developer' });
    const email = `dev-${dev.accountId.slice(0, 8)}@example.com`;
    await suite.ctx.db.update(accounts).set({ email }).where(eq(accounts.id, dev.accountId));
    const { page, context } = await signedIn('/contracts', 'Contracts', email);
    await page.getByRole('link', { name: 'Mutual NDA' }).waitFor();
    expect(await page.getByRole('link', { name: 'Send a contract' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Mutual NDA' }).click();
    await heading1(page, 'Mutual NDA');
    await page.getByRole('button', { name: /^Download signed PDF/ }).waitFor();
    expect(await page.getByRole('button', { name: 'Void contract' }).count()).toBe(0);
    await go(page, 'Bulk payment links', 'Bulk payment links');
    await page.getByRole('link', { name: 'march.csv' }).waitFor();
    expect(await page.getByRole('link', { name: 'Upload a file' }).count()).toBe(0);
    await page.getByRole('link', { name: 'march.csv' }).click();
    await page.getByTestId('job-status').waitFor();
    expect(await page.getByRole('button', { name: 'Cancel upload' }).count()).toBe(0);
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link', { name: 'Travel rule' }).count()).toBe(0);
    await page.goto(`${suite.base}/dashboard/travel-rule`);
    await page.getByRole('alert').filter({ hasText: 'Insufficient permissions' }).waitFor();
    await context.close();
  }, 60_000);
});

/** Screenshots at both widths, and nothing wider than the phone's 390 px viewport. */
async function shots(page: Page, name: string) {
  await screenshots(page, name);
  expect(
    await page.evaluate<number>('document.documentElement.scrollWidth'),
    `${name} at 390 px`,
  ).toBeLessThanOrEqual(390);
}
