/**
 * `npm test`: lint, the type check and the whole vitest suite. The checks run beside the suite
 * instead of before it: vitest's workers leave the CPU idle while they wait (service processes
 * starting, Chromium, real delays), and the checks fill that time instead of holding every test
 * back for their half minute. Their output is kept and printed after the suite's, with a line
 * saying which failed; the exit status is non-zero when any of the three failed. Arguments go to
 * vitest (`npm test -- test/payments`).
 */
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs a check with its output kept (both streams, in order). */
function check(name, args) {
  return new Promise((resolve) => {
    const chunks = [];
    const child = spawn(npm, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('close', (code) => resolve({ name, code: code ?? 1, output: Buffer.concat(chunks).toString() }));
  });
}

function suite(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...args], { stdio: 'inherit' });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const checks = Promise.all([check('lint', ['run', 'lint']), check('typecheck', ['run', 'typecheck'])]);
const suiteCode = await suite(process.argv.slice(2));
const results = await checks;

let status = suiteCode;
for (const r of results) {
  process.stdout.write(`\n${r.output}`);
  console.log(`npm run ${r.name}: ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`}`);
  if (r.code !== 0) status ||= r.code;
}
process.exit(status);
