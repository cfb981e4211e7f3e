/**
 * CI's reporter of where the suite's time goes: per test file (and project), the time of its tests
 * and hooks, of importing it, and of its setup, written to test-results/timings<suffix>.json, and
 * the slowest files printed at the end of the run (docs/testing.md, "How long it takes").
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

interface FileTiming {
  file: string;
  project: string;
  /** Tests and hooks, in seconds. */
  run: number;
  /** Importing the file and running its suite callbacks (module-level awaits count here). */
  collect: number;
  setup: number;
  total: number;
}

export default class TimingReporter implements Reporter {
  private readonly files: FileTiming[] = [];
  private readonly started = Date.now();

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    const s = (ms: number) => Math.round(ms) / 1000;
    const run = s(d.duration);
    const collect = s(d.collectDuration);
    const setup = s(d.setupDuration + d.prepareDuration + d.environmentSetupDuration);
    this.files.push({
      file: path.relative(process.cwd(), module.moduleId),
      project: module.project.name,
      run,
      collect,
      setup,
      total: Math.round((run + collect + setup) * 1000) / 1000,
    });
  }

  onTestRunEnd(): void {
    const wall = (Date.now() - this.started) / 1000;
    const sum = this.files.reduce((a, f) => a + f.total, 0);
    const out = path.join('test-results', `timings${process.env.SVC_TIMINGS_SUFFIX ?? ''}.json`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify({ wallSeconds: wall, files: this.files }, null, 1));
    const slowest = [...this.files].sort((a, b) => b.total - a.total).slice(0, 15);
    const lines = slowest.map(
      (f) =>
        `  ${f.total.toFixed(1).padStart(6)} s  (tests+hooks ${f.run.toFixed(1)}, import ${f.collect.toFixed(1)})  [${f.project}] ${f.file}`,
    );
    console.log(
      `\nTime per file: ${this.files.length} files, ${sum.toFixed(0)} s summed over workers, ${wall.toFixed(0)} s wall (${out}). Slowest:\n${lines.join('\n')}`,
    );
  }
}
