/**
 * Every row of the four status tables of docs/guides/recurring.md and docs/guides/schedules.md (recurring payment, run,
 * instalment, schedule), each mapped to the database tests that exercise it; those files run on
 * both engines (PGlite and PostgreSQL). This file checks the map itself: every row the machines
 * allow is mapped (so a new transition needs a test), each row agrees with its machine, and every
 * named test exists in its file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RECURRING_TRANSITIONS } from '../../src/modules/recurring/recurring.machine';
import {
  autoRetryDelayHours,
  failureReasonOf,
  isRetryable,
  RUN_TRANSITIONS,
} from '../../src/modules/recurring/runs.machine';
import { INSTALMENT_TRANSITIONS, SCHEDULE_TRANSITIONS } from '../../src/modules/schedules/schedules.machine';

type Cover = [file: string, title: string];
interface Row {
  /** Machine trigger; null for the "(none)" rows (inserts). */
  trigger: string | null;
  from: string | null;
  to: string;
  by: Cover[];
}

const LIFE = 'test/recurring/lifecycle.test.ts';
const STAT = 'test/recurring/statuses.test.ts';
const EDIT = 'test/recurring/edits.test.ts';
const CONC = 'test/recurring/concurrency.test.ts';
const PROC = 'test/recurring/processes.test.ts';
const SCHED = 'test/schedules/schedules.test.ts';

const T = {
  created: [LIFE, 'answers 201 pending_authorization with the hosted authorization URL'],
  authorized: [
    LIFE,
    'authorize -> active, first run scheduled; it succeeds at the bank and the next run is created',
  ],
  rejectExpire: [STAT, 'pending_authorization -> authorization_failed (reject) and -> expired (link TTL)'],
  pause: [STAT, 'active -> paused (due runs skipped) -> active by resume_at; pause/resume by POST'],
  skip: [STAT, 'POST …/runs/{id}/skip skips a scheduled run only'],
  cancel: [STAT, 'cancel from active, paused and pending_authorization: open runs canceled'],
  revokeExpire: [STAT, 'revoked by the payer and expired (valid_to) from active and paused'],
  completed: [STAT, 'active -> completed after max_runs with the last run final; limit exceeded fails a run'],
  pausedRevoked: [EDIT, 'paused -> revoked when the payer revokes the mandate'],
  endedByEdit: [EDIT, 'while active: the open run takes the new amount and moves to the new calendar'],
  r51: [LIFE, '.51: insufficient funds -> retry_scheduled after 24h -> auto retry succeeds'],
  r52: [LIFE, '.52: rejected, not retryable -> failed; a manual retry answers 202'],
  r53: [EDIT, '.53 stays processing until the transaction simulate endpoint decides'],
  runNext: [EDIT, 'run-next starts the next scheduled run now, skips it while paused'],
  fromRetryScheduled: [
    EDIT,
    'retry_scheduled -> processing by POST …/retry (next_retry_at cleared), and -> canceled',
  ],
  concurrentRetry: [CONC, '50 concurrent retry calls create exactly one attempt and one transaction'],
  processes: [PROC, 'SIGKILL between scheduling and attempting, and again mid-attempt'],
  planCreated: [SCHED, 'plan: total / count rounded down to cents, the remainder on the first'],
  issuedPaid: [
    SCHED,
    'issues at issue_at on the manual clock, emails the payer the link and reminders, pays, completes',
  ],
  reissued: [
    SCHED,
    'a failed link is re-issued up to the maximum, then overdue; reissue is refused past the maximum',
  ],
  grace: [
    SCHED,
    'grace end passes unpaid: overdue, the pending intent canceled, schedule past_due; reissue brings it back',
  ],
  instCancel: [
    SCHED,
    'sandbox overdue simulation; instalment cancel; every instalment canceled with none paid cancels the schedule',
  ],
  schedCancel: [SCHED, 'schedule cancel: open instalments canceled (pending intents too), paid ones kept'],
  pastDue: [
    SCHED,
    'past_due -> completed (the overdue instalment canceled, the other paid) and past_due -> canceled',
  ],
  lateSettle: [
    'test/schedules/rounding.test.ts',
    'an overdue instalment whose processing payment completes is paid',
  ],
} satisfies Record<string, Cover>;

const RECURRING: Row[] = [
  { trigger: null, from: null, to: 'pending_authorization', by: [T.created] },
  { trigger: 'authorize', from: 'pending_authorization', to: 'active', by: [T.authorized, T.processes] },
  {
    trigger: 'authorization_fail',
    from: 'pending_authorization',
    to: 'authorization_failed',
    by: [T.rejectExpire],
  },
  { trigger: 'authorization_expire', from: 'pending_authorization', to: 'expired', by: [T.rejectExpire] },
  { trigger: 'pause', from: 'active', to: 'paused', by: [T.pause] },
  { trigger: 'resume', from: 'paused', to: 'active', by: [T.pause] },
  { trigger: 'cancel', from: 'active', to: 'canceled', by: [T.cancel] },
  { trigger: 'cancel', from: 'paused', to: 'canceled', by: [T.cancel] },
  { trigger: 'cancel', from: 'pending_authorization', to: 'canceled', by: [T.cancel] },
  { trigger: 'revoke', from: 'active', to: 'revoked', by: [T.revokeExpire] },
  { trigger: 'revoke', from: 'paused', to: 'revoked', by: [T.pausedRevoked] },
  { trigger: 'complete', from: 'active', to: 'completed', by: [T.completed, T.endedByEdit] },
  { trigger: 'expire', from: 'active', to: 'expired', by: [T.revokeExpire] },
  { trigger: 'expire', from: 'paused', to: 'expired', by: [T.revokeExpire] },
];

const RUN: Row[] = [
  { trigger: null, from: null, to: 'scheduled', by: [T.authorized] },
  { trigger: null, from: null, to: 'processing', by: [T.r53] },
  { trigger: 'start', from: 'scheduled', to: 'processing', by: [T.authorized, T.runNext, T.processes] },
  { trigger: 'skip', from: 'scheduled', to: 'skipped', by: [T.skip, T.pause, T.runNext] },
  // "Amount exceeds the mandate limits" for a scheduled run: failed with mandate_limit_exceeded.
  { trigger: 'limit_exceeded', from: 'scheduled', to: 'failed', by: [T.completed] },
  { trigger: 'succeed', from: 'processing', to: 'succeeded', by: [T.authorized, T.r53] },
  { trigger: 'schedule_retry', from: 'processing', to: 'retry_scheduled', by: [T.r51, T.r53] },
  { trigger: 'fail', from: 'processing', to: 'failed', by: [T.r52, T.r53] },
  { trigger: 'auto_retry', from: 'retry_scheduled', to: 'processing', by: [T.r51, T.r53] },
  { trigger: 'manual_retry', from: 'retry_scheduled', to: 'processing', by: [T.fromRetryScheduled] },
  { trigger: 'manual_retry', from: 'failed', to: 'processing', by: [T.r52, T.concurrentRetry] },
  { trigger: 'cancel', from: 'scheduled', to: 'canceled', by: [T.cancel, T.revokeExpire] },
  { trigger: 'cancel', from: 'retry_scheduled', to: 'canceled', by: [T.fromRetryScheduled] },
];

const INSTALMENT: Row[] = [
  { trigger: null, from: null, to: 'scheduled', by: [T.planCreated] },
  { trigger: 'issue', from: 'scheduled', to: 'issued', by: [T.issuedPaid] },
  { trigger: 'pay', from: 'issued', to: 'paid', by: [T.issuedPaid] },
  // Beyond the table: a payment already processing at the grace end completes later.
  { trigger: 'pay', from: 'overdue', to: 'paid', by: [T.lateSettle] },
  { trigger: 'auto_reissue', from: 'issued', to: 'issued', by: [T.reissued] },
  { trigger: 'overdue', from: 'issued', to: 'overdue', by: [T.grace, T.reissued] },
  { trigger: 'reissue', from: 'overdue', to: 'issued', by: [T.grace] },
  { trigger: 'reissue', from: 'issued', to: 'issued', by: [T.reissued] },
  { trigger: 'cancel', from: 'scheduled', to: 'canceled', by: [T.instCancel, T.schedCancel] },
  { trigger: 'cancel', from: 'issued', to: 'canceled', by: [T.schedCancel] },
  { trigger: 'cancel', from: 'overdue', to: 'canceled', by: [T.instCancel, T.pastDue] },
];

const SCHEDULE: Row[] = [
  { trigger: null, from: null, to: 'active', by: [T.planCreated] },
  { trigger: 'fall_behind', from: 'active', to: 'past_due', by: [T.grace, T.reissued] },
  { trigger: 'catch_up', from: 'past_due', to: 'active', by: [T.grace] },
  { trigger: 'complete', from: 'active', to: 'completed', by: [T.issuedPaid] },
  { trigger: 'complete', from: 'past_due', to: 'completed', by: [T.pastDue] },
  { trigger: 'cancel', from: 'active', to: 'canceled', by: [T.schedCancel, T.instCancel] },
  { trigger: 'cancel', from: 'past_due', to: 'canceled', by: [T.pastDue] },
];

type Machine = Record<string, { from: readonly string[]; to: string }>;
const TABLES: [string, Machine, Row[]][] = [
  ['recurring payment', RECURRING_TRANSITIONS, RECURRING],
  ['run', RUN_TRANSITIONS, RUN],
  ['instalment', INSTALMENT_TRANSITIONS, INSTALMENT],
  ['schedule', SCHEDULE_TRANSITIONS, SCHEDULE],
];

const root = path.resolve(import.meta.dirname, '../..');
const sources = new Map<string, string>();
const source = (file: string) => {
  if (!sources.has(file)) sources.set(file, fs.readFileSync(path.join(root, file), 'utf8'));
  return sources.get(file)!;
};

describe.each(TABLES)('%s status table', (_name, machine, rows) => {
  it('maps every transition the machine allows to a row', () => {
    for (const [trigger, t] of Object.entries(machine))
      for (const from of t.from)
        expect(
          rows.some((r) => r.trigger === trigger && r.from === from && r.to === t.to),
          `${trigger}: ${from} -> ${t.to}`,
        ).toBe(true);
  });

  it('each row agrees with its machine', () => {
    for (const r of rows.filter((x) => x.trigger !== null)) {
      const t = machine[r.trigger!];
      expect(t, r.trigger!).toBeDefined();
      expect(t!.from).toContain(r.from);
      expect(t!.to).toBe(r.to);
    }
  });

  it('names database tests that exist (they run on PGlite and PostgreSQL)', () => {
    for (const r of rows)
      for (const [file, title] of r.by) {
        expect(file.endsWith('.unit.test.ts'), file).toBe(false);
        expect(source(file), `${file}: ${title}`).toContain(title);
      }
  });
});

describe('failure reasons (review H8)', () => {
  it('settlement_incomplete is not a retryable bank failure; outcome_unknown is never retried', () => {
    expect(failureReasonOf('settlement_incomplete', 'failed')).toBe('outcome_unknown');
    expect(isRetryable('outcome_unknown')).toBe(false);
    expect(
      autoRetryDelayHours({
        reason: 'outcome_unknown',
        autoRetry: true,
        retryAfterHours: [24, 72],
        autoRetriesUsed: 0,
        attemptsSoFar: 1,
        maxAttempts: 4,
      }),
    ).toBeNull();
  });
});
