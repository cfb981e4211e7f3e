/**
 * Status machines (docs/platform.md, "Status machines"). A feature states its table once with
 * `defineMachine` (statuses, the moves of each trigger, the terminal statuses, what a refused move
 * answers) and moves a row only through `transition`: the table's check, a compare-and-set on the
 * row's status, then the feature's effects (event, activity entry, notifications) as hooks, all in
 * the caller's transaction.
 */
import { and, eq, getTableColumns, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../db/client';
import { AppError } from '../shared/errors';

/** One row of a status table: `trigger` takes a row in `from` to `to`. */
export interface Move<S extends string, T extends string> {
  readonly trigger: T;
  readonly from: S;
  readonly to: S;
}

/** The table by trigger: each trigger moves from any of `from` to one `to`. */
export type TransitionsByTrigger<S extends string, T extends string> = {
  readonly [K in T]: { readonly from: readonly S[]; readonly to: S };
};
/** The table as rows, for triggers whose target depends on where the row is. */
export type TransitionRows<S extends string, T extends string> = readonly Move<S, T>[];

export interface MachineDefinition<S extends string, T extends string> {
  /** What moves (`invoice`, `bulk job`): named in programming errors only, never in answers. */
  name: string;
  statuses: readonly S[];
  transitions: TransitionsByTrigger<NoInfer<S>, T> | TransitionRows<NoInfer<S>, T>;
  /** Statuses nothing moves out of. */
  terminal: readonly NoInfer<S>[];
  /**
   * The answer to a move the table refuses: a 400 with the feature's catalogue message for a
   * business rule or invalid state, a 409 for a state conflict.
   */
  refused: (trigger: T, from: S) => AppError;
}

export interface Machine<S extends string, T extends string> {
  readonly name: string;
  readonly statuses: readonly S[];
  readonly terminal: readonly S[];
  readonly moves: readonly Move<S, T>[];
  isStatus(value: string): value is S;
  isTerminal(status: S): boolean;
  can(trigger: T, from: S): boolean;
  /** Where `trigger` takes a row in `from`; null when the table refuses the move. */
  next(trigger: T, from: S): S | null;
  /** The statuses `trigger` moves out of. */
  sources(trigger: T): readonly S[];
  /** The trigger (of `among`, or any) that moves `from` to `to`; null when none does. */
  triggerFor(from: S, to: S, among?: readonly T[]): T | null;
  /** `next`, or the refusal the definition names. */
  assert(trigger: T, from: S): S;
  refused(trigger: T, from: S): AppError;
}

export type StatusOf<M> = M extends Machine<infer S, string> ? S : never;
export type TriggerOf<M> = M extends Machine<string, infer T> ? T : never;

function rowsOf<S extends string, T extends string>(
  t: TransitionsByTrigger<S, T> | TransitionRows<S, T>,
): Move<S, T>[] {
  if (Array.isArray(t)) return [...(t as TransitionRows<S, T>)];
  const out: Move<S, T>[] = [];
  for (const [trigger, e] of Object.entries(t) as [T, { from: readonly S[]; to: S }][])
    for (const from of e.from) out.push({ trigger, from, to: e.to });
  return out;
}

/** Checks the table once, at load: a wrong table is a programming error, never a runtime answer. */
function checkTable<S extends string, T extends string>(
  name: string,
  statuses: readonly S[],
  terminal: readonly S[],
  moves: readonly Move<S, T>[],
) {
  const known = new Set<string>(statuses);
  const seen = new Map<string, S>();
  for (const m of moves) {
    for (const s of [m.from, m.to])
      if (!known.has(s)) throw new Error(`${name} machine: '${s}' (${m.trigger}) is not a status`);
    if (terminal.includes(m.from))
      throw new Error(`${name} machine: terminal status '${m.from}' has a move (${m.trigger})`);
    const key = `${m.trigger}\u0000${m.from}`;
    if (seen.has(key) && seen.get(key) !== m.to)
      throw new Error(`${name} machine: ${m.trigger} from '${m.from}' has two targets`);
    seen.set(key, m.to);
  }
  for (const s of terminal)
    if (!known.has(s)) throw new Error(`${name} machine: terminal '${s}' is not a status`);
}

export function defineMachine<S extends string, T extends string>(
  def: MachineDefinition<S, T>,
): Machine<S, T> {
  const moves = rowsOf(def.transitions);
  checkTable(def.name, def.statuses, def.terminal, moves);
  const next = (trigger: T, from: S): S | null =>
    moves.find((m) => m.trigger === trigger && m.from === from)?.to ?? null;
  const machine: Machine<S, T> = {
    name: def.name,
    statuses: def.statuses,
    terminal: def.terminal,
    moves,
    isStatus: (value: string): value is S => (def.statuses as readonly string[]).includes(value),
    isTerminal: (status) => def.terminal.includes(status),
    can: (trigger, from) => next(trigger, from) !== null,
    next,
    sources: (trigger) => moves.filter((m) => m.trigger === trigger).map((m) => m.from),
    triggerFor: (from, to, among) =>
      moves.find((m) => m.from === from && m.to === to && (!among || among.includes(m.trigger)))?.trigger ??
      null,
    assert(trigger, from) {
      const to = next(trigger, from);
      if (to === null) throw def.refused(trigger, from);
      return to;
    },
    refused: (trigger, from) => def.refused(trigger, from),
  };
  return machine;
}

/**
 * A machine bound to the table that stores its rows: which column holds the status, whether a
 * `version` column is compared and bumped with every move, and the 409 a lost compare-and-set answers.
 */
export interface MachineTable<S extends string, T extends string, TTable extends PgTable> {
  readonly machine: Machine<S, T>;
  readonly table: TTable;
  readonly statusKey: string;
  readonly versionKey: string | null;
  readonly conflict: string;
}

type RowOf<TTable extends PgTable> = TTable['$inferSelect'];
type ChangesOf<TTable extends PgTable> = Partial<TTable['$inferInsert']>;

export function machineTable<
  S extends string,
  T extends string,
  TTable extends PgTable,
  K extends keyof RowOf<TTable> & string = 'status',
>(
  machine: Machine<S, T>,
  table: TTable,
  opts: {
    /** The 409 (catalogue message) when another writer moved the row first. */
    conflict: string;
    /** The status column's property (default `status`); its type must be the machine's statuses. */
    status?: K;
    /** A version column compared and bumped with each move (its events name the version). */
    version?: keyof RowOf<TTable> & string;
  } & (RowOf<TTable>[K] extends S ? unknown : { statusColumnIsNotTheMachines: never }),
): MachineTable<S, T, TTable> {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const statusKey = opts.status ?? 'status';
  for (const key of ['id', statusKey, ...(opts.version ? [opts.version] : [])])
    if (!columns[key]) throw new Error(`${machine.name} machine: its table has no '${key}' column`);
  return { machine, table, statusKey, versionKey: opts.version ?? null, conflict: opts.conflict };
}

const field = (row: object, key: string) => (row as Record<string, unknown>)[key];

/** The status a stored row is in. */
export function statusOf<S extends string, T extends string, TTable extends PgTable>(
  mt: MachineTable<S, T, TTable>,
  row: RowOf<TTable>,
): S {
  const s = field(row, mt.statusKey);
  if (typeof s !== 'string' || !mt.machine.isStatus(s))
    throw new Error(`${mt.machine.name} machine: stored status '${String(s)}' is not a status`);
  return s;
}

/**
 * `UPDATE … SET changes WHERE id = row.id AND status = row.status` (and `version = row.version`,
 * bumped): the row as it is now, or null when another writer moved it first.
 */
export async function compareAndSet<S extends string, T extends string, TTable extends PgTable>(
  tx: DbOrTx,
  mt: MachineTable<S, T, TTable>,
  row: RowOf<TTable>,
  changes: ChangesOf<TTable>,
): Promise<RowOf<TTable> | null> {
  const columns = getTableColumns(mt.table) as Record<string, PgColumn>;
  const where: SQL[] = [eq(columns.id!, field(row, 'id')), eq(columns[mt.statusKey]!, statusOf(mt, row))];
  const values: Record<string, unknown> = { ...changes };
  if (mt.versionKey) {
    const version = field(row, mt.versionKey) as number;
    where.push(eq(columns[mt.versionKey]!, version));
    values[mt.versionKey] = version + 1;
  }
  // One generic statement over any machine's table: Drizzle cannot type `set` for an unknown table.
  const updated = (await (tx as any)
    .update(mt.table)
    .set(values)
    .where(and(...where))
    .returning()) as RowOf<TTable>[];
  return updated[0] ?? null;
}

/** The feature's effects of a move, run in this order after the row moved, in the caller's transaction. */
export interface TransitionHooks<R, S extends string, T extends string> {
  /** Rows that change with this one and that its event reports (a job's rows, a request's wallet). */
  before?: (moved: R, move: Move<S, T>) => Promise<unknown>;
  /** The `…status_changed` event (and the in-process reactions to it). */
  event?: (moved: R, move: Move<S, T>) => Promise<unknown>;
  activity?: (moved: R, move: Move<S, T>) => Promise<unknown>;
  notify?: (moved: R, move: Move<S, T>) => Promise<unknown>;
  /** What follows from the new status (open runs canceled, the next run scheduled). */
  after?: (moved: R, move: Move<S, T>) => Promise<unknown>;
}

export interface TransitionOptions<R, C, S extends string, T extends string>
  extends TransitionHooks<R, S, T> {
  /** Columns written with the status (timestamps, reasons), given the move. */
  set?: C | ((move: Move<S, T>) => C);
  /**
   * When another writer moved the row first (the compare-and-set touched nothing): `conflict`
   * answers the table's 409 (the default), `null` returns null for the caller to decide, and
   * `{ reload }` reads the row again and decides again (up to 5 times, then the 409).
   */
  lost?: 'conflict' | 'null' | { reload: () => Promise<R | null> };
}

const DECIDE_ATTEMPTS = 5;

/**
 * Moves `row` by `trigger` (or by what `decide` answers for the row as it is; null = nothing to do,
 * which returns null). A move the table refuses throws the machine's refusal; otherwise the row is
 * written by compare-and-set and the hooks run in the caller's transaction.
 */
export async function transition<S extends string, T extends string, TTable extends PgTable>(
  tx: DbOrTx,
  mt: MachineTable<S, T, TTable>,
  row: RowOf<TTable>,
  trigger: T,
  opts?: TransitionOptions<RowOf<TTable>, ChangesOf<TTable>, S, T> & { lost?: 'conflict' },
): Promise<RowOf<TTable>>;
export async function transition<S extends string, T extends string, TTable extends PgTable>(
  tx: DbOrTx,
  mt: MachineTable<S, T, TTable>,
  row: RowOf<TTable>,
  trigger: T | ((current: RowOf<TTable>) => T | null),
  opts: TransitionOptions<RowOf<TTable>, ChangesOf<TTable>, S, T>,
): Promise<RowOf<TTable> | null>;
export async function transition<S extends string, T extends string, TTable extends PgTable>(
  tx: DbOrTx,
  mt: MachineTable<S, T, TTable>,
  row: RowOf<TTable>,
  trigger: T | ((current: RowOf<TTable>) => T | null),
  opts: TransitionOptions<RowOf<TTable>, ChangesOf<TTable>, S, T> = {},
): Promise<RowOf<TTable> | null> {
  const lost = opts.lost ?? 'conflict';
  let current: RowOf<TTable> | null = row;
  for (let attempt = 0; current && attempt < DECIDE_ATTEMPTS; attempt++) {
    const t = typeof trigger === 'function' ? trigger(current) : trigger;
    if (t === null) return null;
    const from = statusOf(mt, current);
    const move: Move<S, T> = { trigger: t, from, to: mt.machine.assert(t, from) };
    const set = typeof opts.set === 'function' ? opts.set(move) : opts.set;
    const moved = await compareAndSet(tx, mt, current, {
      ...set,
      [mt.statusKey]: move.to,
    } as ChangesOf<TTable>);
    if (moved) {
      for (const hook of [opts.before, opts.event, opts.activity, opts.notify, opts.after])
        await hook?.(moved, move);
      return moved;
    }
    if (lost === 'null') return null;
    if (lost === 'conflict') break;
    current = await lost.reload();
  }
  if (current === null) return null;
  throw new AppError(409, mt.conflict);
}
