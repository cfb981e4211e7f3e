/**
 * How the guides are rendered for /docs/guides: GitHub's heading anchors (so `#anchors` written for
 * the code host work on the served page), links between guides rewritten to the served paths, links
 * to other repository files kept as text, and the sidebar order.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GUIDES_DIR, renderGuides, stateDiagramTable } from '../../src/plugins/docs-guides';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-guides-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

fs.writeFileSync(
  path.join(dir, 'index.md'),
  '# All guides\n\n[Pay](payments.md), [its rules](payments.md#rules-and-limits), [home](index.md#all-guides), [platform](../platform.md), [API](/docs), [site](https://example.com)\n',
);
fs.writeFileSync(
  path.join(dir, 'payments.md'),
  '# Payments\n\n## Rules and limits\n\n## Rules and limits\n\n## `svc listen` and `svc trigger` (local development)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```sh\ncurl -s $BASE\n```\n',
);
fs.writeFileSync(path.join(dir, 'zz-extra.md'), '# Extra\n');

describe('rendering the guides', () => {
  const guides = renderGuides(dir);

  it('orders the sidebar (index first, known guides, then the rest) and takes titles from the H1', () => {
    expect([...guides.keys()]).toEqual(['index', 'payments', 'zz-extra']);
    expect(guides.get('payments')!.title).toBe('Payments');
  });

  it('gives headings the anchors a code host gives them', () => {
    const html = guides.get('payments')!.html;
    expect(html).toContain('<h2 id="rules-and-limits">');
    expect(html).toContain('<h2 id="rules-and-limits-1">');
    expect(html).toContain('id="svc-listen-and-svc-trigger-local-development"');
  });

  it('rewrites links between guides and keeps other repository files as text', () => {
    const html = guides.get('index')!.html;
    expect(html).toContain('<a href="/docs/guides/payments">Pay</a>');
    expect(html).toContain('<a href="/docs/guides/payments#rules-and-limits">');
    expect(html).toContain('<a href="/docs/guides#all-guides">');
    expect(html).toContain(
      '<span class="repo-path" title="../platform.md in the repository">platform</span>',
    );
    expect(html).toContain('<a href="/docs">API</a>');
    expect(html).toContain('<a href="https://example.com">site</a>');
    expect(html).not.toMatch(/href="[^"]*\.md/);
  });

  it('makes code blocks and tables focusable (they scroll sideways)', () => {
    const html = guides.get('payments')!.html;
    expect(html).toContain('<pre tabindex="0">');
    expect(html).toContain('<table tabindex="0">');
  });

  it('renders every guide of the repository, and the going-live guides and vendor notes beside them', () => {
    const all = renderGuides(GUIDES_DIR);
    for (const slug of ['index', 'quickstart', 'payments', 'sandbox', 'operations', 'dashboard'])
      expect(all.has(slug), slug).toBe(true);
    // Maintainer documents (bench history, internals) live outside docs/guides and are not served.
    for (const slug of ['performance', 'dashboard-internals', 'hosted-pages'])
      expect(all.has(slug), slug).toBe(false);
    for (const slug of ['going-live-tokenio', 'going-live-sumsub', 'vendor-tokenio', 'vendor-sumsub'])
      expect(all.has(slug), slug).toBe(true);
    // A guide's link to them is a link now, not grey text; maintainer documents stay text.
    const index = all.get('index')!.html;
    expect(index).toContain('href="/docs/guides/going-live-tokenio"');
    expect(index).toContain('title="../platform.md in the repository"');
    // The status diagrams are drawn as tables of transitions, not shown as Mermaid source.
    const payments = all.get('payments')!.html;
    expect(payments).not.toContain('stateDiagram-v2');
    expect(payments).toContain('<caption>Status transitions</caption>');
  });

  it('turns a state diagram into its transitions, start and final statuses', () => {
    const out = stateDiagramTable(
      'stateDiagram-v2\n    [*] --> pending\n    pending --> success: bank_confirmed\n    success --> [*]',
    )!;
    expect(out).toContain(
      '<td><code>pending</code></td><td><code>success</code></td><td>bank_confirmed</td>',
    );
    expect(out).toContain('Starts in <code>pending</code>. Final: <code>success</code>.');
    expect(stateDiagramTable('flowchart LR\n a --> b')).toBeNull();
  });
});
