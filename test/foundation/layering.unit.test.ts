/**
 * The layering lint (`npm run lint`: dependency-cruiser with .dependency-cruiser.cjs) refuses a
 * feature importing from a vendor folder (src/providers/<kind>/<vendor>/), and lets it use the
 * kind's port. Checked on a small tree of its own, so the rule is proven to bite.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { cruise, type IForbiddenRuleType } from 'dependency-cruiser';
import { afterAll, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const { forbidden }: { forbidden: IForbiddenRuleType[] } = require('../../.dependency-cruiser.cjs');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layering-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(file: string, text: string) {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
}

async function violations(): Promise<[string, string, string][]> {
  const r = await cruise(['src'], { ruleSet: { forbidden }, validate: true, baseDir: dir });
  if (typeof r.output === 'string') throw new Error('unexpected text output');
  return r.output.summary.violations.map((v) => [v.rule.name, v.from, v.to]);
}

it('refuses a feature importing from providers/<kind>/<vendor>/, allows the port', async () => {
  write('src/providers/bank/port.ts', 'export const port = 1;\n');
  write('src/providers/bank/acme/index.ts', "import { port } from '../port';\nexport const acme = port;\n");
  write(
    'src/providers/registry.ts',
    "import { acme } from './bank/acme/index';\nexport const list = [acme];\n",
  );
  write(
    'src/modules/shop/shop.service.ts',
    "import { port } from '../../providers/bank/port';\nexport const a = port;\n",
  );
  expect(await violations()).toEqual([]);

  write(
    'src/modules/shop/shop.worker.ts',
    "import { acme } from '../../providers/bank/acme/index';\nexport const b = acme;\n",
  );
  write(
    'src/platform/thing.ts',
    "import { acme } from '../providers/bank/acme/index';\nexport const c = acme;\n",
  );
  expect(await violations()).toEqual([
    ['no-vendor-outside-providers', 'src/modules/shop/shop.worker.ts', 'src/providers/bank/acme/index.ts'],
    ['no-vendor-outside-providers', 'src/platform/thing.ts', 'src/providers/bank/acme/index.ts'],
  ]);
});
