/**
 * Rewrites the generated blocks of docs/guides (`npm run docs:generate`): the status-machine
 * diagrams and the message catalogues, see docs-blocks.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { generatedBlocks, writeBlock } from './docs-blocks';

const guides = path.resolve(import.meta.dirname, '../../docs/guides');
for (const [file, blocks] of generatedBlocks()) {
  const full = path.join(guides, file);
  let doc = fs.readFileSync(full, 'utf8');
  for (const [name, content] of blocks) doc = writeBlock(doc, name, content);
  fs.writeFileSync(full, doc);
  process.stdout.write(`docs/guides/${file}: ${[...blocks.keys()].join(', ')}\n`);
}
