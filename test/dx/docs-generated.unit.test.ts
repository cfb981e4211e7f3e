/**
 * The generated blocks of docs/guides are current: every status-machine diagram is the machine's
 * own table and the error catalogues are the code's messages (`npm run docs:generate` rewrites them).
 * The permission table and the endpoint lists need the app's routes: test/auth/route-access.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedBlocks, MACHINE_DIAGRAMS, readBlock } from '../../src/cli/docs-blocks';
import { M } from '../../src/shared/messages';

const guides = path.resolve(import.meta.dirname, '../../docs/guides');
const blocks = [...generatedBlocks()].flatMap(([file, named]) =>
  [...named].map(([name, content]) => [`${file} ${name}`, file, name, content] as const),
);

describe('generated blocks of the guides', () => {
  it.each(blocks)('%s is current (npm run docs:generate)', (_label, file, name, content) => {
    const doc = fs.readFileSync(path.join(guides, file), 'utf8');
    expect(readBlock(doc, name)).toBe(content);
  });

  it('draws every machine, each as a Mermaid state diagram of its moves', () => {
    expect(Object.keys(MACHINE_DIAGRAMS).length).toBeGreaterThanOrEqual(19);
    const transaction = readBlock(
      fs.readFileSync(path.join(guides, 'payments.md'), 'utf8'),
      'machine:transaction',
    );
    expect(transaction).toContain('stateDiagram-v2');
    expect(transaction).toContain('processing --> success: bank_confirmed');
    expect(transaction).toContain('success --> [*]');
  });

  it('lists the messages verbatim, parameters as {name}', () => {
    const errors = fs.readFileSync(path.join(guides, 'errors.md'), 'utf8');
    expect(errors).toContain(`| ${M.opcoNoSubTpp} |`);
    expect(errors).toContain("| Opco is already in '{status}' status |");
  });
});
