/**
 * The official lists behind the sanctions port: loading a list into a new version (client, mapping,
 * store), and screening names against the current versions, indexed in memory per node and rebuilt
 * from the database when a list's current version changes (every node screens against the version
 * the database names). With `sandbox` on (sandbox deployments), a name containing SANCTIONED also
 * matches the `Sandbox sanctions list`, exactly as before the official lists existed.
 */
import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import { fetchListFile, ListFetchError } from './client';
import type { ListSource, SanctionsConfig } from './config';
import { LIST_PARSERS } from './mapping';
import { NameIndex } from './matching';
import {
  ListDeferredError,
  type ListStatus,
  type LoadOutcome,
  MAX_HITS_PER_PARTY,
  SANCTIONS_LIST_NAMES,
  type SanctionsContext,
  type SanctionsHit,
  type SanctionsListId,
  type SanctionsLists,
  SanctionsUnavailableError,
  type ScreenOptions,
  type ScreenParty,
} from './port';
import { type ListStateRow, readEntries, readListStates, recordAttempt, writeVersion } from './store';

export const SANDBOX_SANCTIONS_LIST = 'Sandbox sanctions list';

/** A list's current version moved while this node read its entries. */
class VersionMovedError extends Error {}

interface Runtime {
  metrics: Registry;
  log: FastifyBaseLogger;
}

/** The sandbox list of section 2: a name containing `SANCTIONED` (any case). */
function sandboxHit(name: string): SanctionsHit | null {
  return /sanctioned/i.test(name)
    ? {
        list: SANDBOX_SANCTIONS_LIST,
        entry_id: null,
        entry_name: null,
        matched_name: name.trim(),
        alias_strength: 'primary',
        match_score: 100,
        list_version: 'sandbox',
      }
    : null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export class OfficialSanctionsLists implements SanctionsLists {
  readonly configured: boolean;
  readonly lists: readonly SanctionsListId[];
  private readonly indexes = new Map<string, { snapshotId: string; index: Promise<NameIndex> }>();
  /** The last database handle used, for the age gauge's collection at scrape time. */
  private lastCtx: SanctionsContext | null = null;
  private readonly loads: Counter<'list' | 'outcome'>;

  constructor(
    readonly config: SanctionsConfig,
    private readonly runtime: Runtime,
  ) {
    this.configured = config.sandbox || config.lists.length > 0;
    this.lists = config.lists.map((l) => l.list);
    const self = this;
    const lists = config.lists.map((l) => l.list);
    this.loads = new Counter({
      name: 'svc_sanctions_list_loads_total',
      help: 'Sanctions list load attempts by outcome (loaded, unchanged, failed, deferred: not attempted before a Retry-After)',
      labelNames: ['list', 'outcome'],
      registers: [runtime.metrics],
    });
    new Gauge({
      name: 'svc_sanctions_list_age_seconds',
      help: "Age of each list's current version (since it was loaded); -1 when none is loaded",
      labelNames: ['list'],
      registers: [runtime.metrics],
      async collect() {
        const ctx = self.lastCtx;
        if (!ctx || lists.length === 0) return;
        const states = await readListStates(ctx.db, lists).catch(() => null);
        if (!states) return;
        const now = ctx.clock.now().getTime();
        for (const list of lists) {
          const s = states.find((x) => x.list === list);
          this.set({ list }, s?.loadedAt ? Math.round((now - s.loadedAt.getTime()) / 1000) : -1);
        }
      },
    });
    new Gauge({
      name: 'svc_sanctions_list_entries',
      help: "Entries in each list's current version",
      labelNames: ['list'],
      registers: [runtime.metrics],
      async collect() {
        const ctx = self.lastCtx;
        if (!ctx || lists.length === 0) return;
        const states = await readListStates(ctx.db, lists).catch(() => null);
        for (const s of states ?? []) this.set({ list: s.list }, s.entryCount ?? 0);
      },
    });
  }

  private source(list: string): ListSource | undefined {
    return this.config.lists.find((l) => l.list === list);
  }

  /**
   * The index of a list's current version, built once per version per node. The entries read must be
   * the version's whole count: another node may have superseded the version (and deleted its
   * entries) between reading the list's state and reading the entries, and a partial read must never
   * screen as a clean list.
   */
  private indexFor(
    ctx: SanctionsContext,
    list: string,
    snapshotId: string,
    entryCount: number | null,
  ): Promise<NameIndex> {
    const cached = this.indexes.get(list);
    if (cached?.snapshotId === snapshotId) return cached.index;
    const index = readEntries(ctx.db, snapshotId).then((entries) => {
      if (entryCount !== null && entries.length !== entryCount)
        throw new VersionMovedError(`${list}: read ${entries.length} of ${entryCount} entries`);
      return new NameIndex(entries);
    });
    index.catch(() => {
      if (this.indexes.get(list)?.index === index) this.indexes.delete(list);
    });
    this.indexes.set(list, { snapshotId, index });
    return index;
  }

  /**
   * Whether a list's version may screen: it exists, and it was confirmed current (loaded, or its file
   * found unchanged) within SVC_SANCTIONS_MAX_AGE_HOURS. Null when it may; else why not.
   */
  private unavailableReason(state: ListStateRow | undefined, now: Date): string | null {
    if (!state?.snapshotId) return 'has no loaded version yet';
    const confirmed = state.lastSuccessAt ?? state.loadedAt;
    const hours = confirmed ? (now.getTime() - confirmed.getTime()) / 3_600_000 : Number.POSITIVE_INFINITY;
    if (hours > this.config.maxAgeHours)
      return `was last confirmed current ${Math.floor(hours)} hours ago (SVC_SANCTIONS_MAX_AGE_HOURS is ${this.config.maxAgeHours})`;
    return null;
  }

  async screen(
    ctx: SanctionsContext,
    parties: ScreenParty[],
    opts: ScreenOptions,
  ): Promise<SanctionsHit[][]> {
    this.lastCtx = ctx;
    const official = this.config.lists.map((l) => l.list);
    const indexes: { list: SanctionsListId; version: string; index: NameIndex }[] = [];
    for (let attempt = 1; official.length > 0; attempt++) {
      indexes.length = 0;
      const states = await readListStates(ctx.db, official);
      try {
        for (const list of official) {
          const state = states.find((s) => s.list === list);
          // Fail closed: a configured list with no version yet, or one not confirmed current within
          // SVC_SANCTIONS_MAX_AGE_HOURS, would make a clean answer a guess.
          const why = this.unavailableReason(state, ctx.clock.now());
          if (why) throw new SanctionsUnavailableError(`${list} ${why}`);
          indexes.push({
            list,
            version: state!.version ?? '',
            index: await this.indexFor(ctx, list, state!.snapshotId!, state!.entryCount),
          });
        }
        break;
      } catch (err) {
        // A version superseded while it was being read: read the lists' state again, once.
        if (!(err instanceof VersionMovedError)) throw err;
        if (attempt >= 2) throw new SanctionsUnavailableError(err.message);
      }
    }
    return parties.map((party) => {
      const hits: SanctionsHit[] = [];
      const sandbox = this.config.sandbox ? sandboxHit(party.name) : null;
      if (sandbox) hits.push(sandbox);
      for (const { list, version, index } of indexes)
        for (const c of index.matches(party, opts.threshold, MAX_HITS_PER_PARTY))
          hits.push({
            list: SANCTIONS_LIST_NAMES[list],
            entry_id: c.entryId,
            entry_name: c.entryName,
            matched_name: c.matchedName,
            alias_strength: c.strength,
            match_score: c.score,
            list_version: version,
            ...(c.dobCheck ? { date_of_birth_check: c.dobCheck } : {}),
            ...(c.countryCheck ? { country_check: c.countryCheck } : {}),
          });
      // Every list's hits, best first (a stable sort keeps the lists' order among equal scores).
      return hits.sort((a, b) => b.match_score - a.match_score).slice(0, MAX_HITS_PER_PARTY);
    });
  }

  /**
   * Loads a list from its source into a new version when its content changed. Throws on any failure
   * (download, format, a suspicious drop in size) after recording it: the current version stays.
   */
  async load(ctx: SanctionsContext, list: SanctionsListId): Promise<LoadOutcome> {
    this.lastCtx = ctx;
    const src = this.source(list);
    if (!src) return { outcome: 'skipped', reason: `${list} is not configured` };
    const [state] = await readListStates(ctx.db, [list]);
    const startedAt = ctx.clock.now();
    // The list server asked us to wait (Retry-After): no request before then, whoever runs the load.
    if (state?.retryNotBefore && startedAt < state.retryNotBefore) {
      this.loads.inc({ list, outcome: 'deferred' });
      throw new ListDeferredError(list, state.retryNotBefore);
    }
    try {
      // A conditional GET once a version exists: a 304 is the list unchanged, not downloaded again.
      const fetched = await fetchListFile(
        src.source,
        this.config,
        state?.snapshotId && (state.etag || state.lastModified)
          ? { etag: state.etag, lastModified: state.lastModified }
          : null,
      );
      if (fetched.kind === 'not_modified') {
        await recordAttempt(ctx.db, list, ctx.clock.now(), { ok: true });
        this.loads.inc({ list, outcome: 'unchanged' });
        return { outcome: 'unchanged', version: state?.version ?? '' };
      }
      const bytes = fetched.bytes;
      const sha = createHash('sha256').update(bytes).digest('hex');
      if (state?.snapshotId && state.contentSha256 === sha) {
        await recordAttempt(ctx.db, list, ctx.clock.now(), { ok: true, validators: fetched.validators });
        this.loads.inc({ list, outcome: 'unchanged' });
        return { outcome: 'unchanged', version: state.version ?? '' };
      }
      const parsed = LIST_PARSERS[list](bytes.toString('utf8'));
      // A publication older than the current version's (a stale mirror, a cached or replayed
      // download) would undo designations made since: refused.
      const published = parsed.publishedAt ? Date.parse(parsed.publishedAt) : Number.NaN;
      const current = state?.publishedAt ? Date.parse(state.publishedAt) : Number.NaN;
      if (state?.snapshotId && published < current)
        throw new Error(
          `the file was published ${parsed.publishedAt}, before the current version's ${state.publishedAt}: refused`,
        );
      const previous = state?.entryCount ?? 0;
      const floor = Math.ceil((previous * (100 - this.config.maxDropPercent)) / 100);
      if (state?.snapshotId && parsed.entries.length < floor)
        throw new Error(
          `the new file has ${parsed.entries.length} entries against ${previous} (more than ${this.config.maxDropPercent}% fewer): refused`,
        );
      const version = `${parsed.publishedAt ?? startedAt.toISOString()}#${sha.slice(0, 12)}`;
      const written = await writeVersion(
        ctx.db,
        ctx.clock.now(),
        { list, version, publishedAt: parsed.publishedAt, contentSha256: sha, entries: parsed.entries },
        state?.snapshotId ?? null,
      );
      if (!written.applied) return { outcome: 'skipped', reason: 'another node loaded this list first' };
      await recordAttempt(ctx.db, list, ctx.clock.now(), { ok: true, validators: fetched.validators });
      this.loads.inc({ list, outcome: 'loaded' });
      this.runtime.log.info(
        { list, version, entries: parsed.entries.length, added: written.added, removed: written.removed },
        'sanctions list loaded',
      );
      return {
        outcome: 'loaded',
        version,
        entries: parsed.entries.length,
        added: written.added,
        removed: written.removed,
      };
    } catch (err) {
      const now = ctx.clock.now();
      let message = err instanceof Error ? err.message : String(err);
      const asked = err instanceof ListFetchError ? err.retryAfterMs : undefined;
      const wait = asked === undefined ? null : Math.min(asked, this.config.maxRetryAfterSeconds * 1000);
      const notBefore = wait === null ? null : new Date(now.getTime() + wait);
      if (notBefore)
        message += ` (Retry-After ${Math.round(asked! / 1000)} s${
          asked! > wait! ? `, capped at ${this.config.maxRetryAfterSeconds} s` : ''
        }): no new attempt before ${notBefore.toISOString()}`;
      await recordAttempt(ctx.db, list, now, { ok: false, error: message, retryNotBefore: notBefore });
      this.loads.inc({ list, outcome: 'failed' });
      this.runtime.log.warn(
        {
          list,
          err: message,
          ...(notBefore ? { retry_after_seconds: Math.round(asked! / 1000), not_before: notBefore } : {}),
        },
        'sanctions list load failed; the current version stays',
      );
      throw notBefore ? new ListDeferredError(list, notBefore, message) : err;
    }
  }

  /** Per configured list: its current version, counts, age and the last load's outcome. */
  async status(ctx: SanctionsContext): Promise<ListStatus[]> {
    this.lastCtx = ctx;
    const now = ctx.clock.now().getTime();
    const states = await readListStates(
      ctx.db,
      this.config.lists.map((l) => l.list),
    );
    const out: ListStatus[] = this.config.lists.map((l) => {
      const s: Partial<ListStateRow> = states.find((x) => x.list === l.list) ?? {};
      const age = s.loadedAt ? Math.round((now - s.loadedAt.getTime()) / 1000) : null;
      const unavailable = this.unavailableReason(s.list ? (s as ListStateRow) : undefined, new Date(now));
      return {
        list: l.list,
        name: SANCTIONS_LIST_NAMES[l.list],
        source:
          l.source.kind === 'url' ? new URL(l.source.url).origin + new URL(l.source.url).pathname : 'file',
        version: s.version ?? null,
        published_at: s.publishedAt ?? null,
        entry_count: s.entryCount ?? null,
        added_count: s.addedCount ?? null,
        removed_count: s.removedCount ?? null,
        loaded_at: iso(s.loadedAt ?? null),
        age_seconds: age,
        stale: unavailable !== null,
        last_attempt_at: iso(s.lastAttemptAt ?? null),
        last_success_at: iso(s.lastSuccessAt ?? null),
        last_error: s.lastError ?? null,
        last_error_at: iso(s.lastErrorAt ?? null),
        retry_not_before:
          s.retryNotBefore && s.retryNotBefore.getTime() > now ? s.retryNotBefore.toISOString() : null,
      };
    });
    if (this.config.sandbox)
      out.unshift({
        list: 'sandbox',
        name: SANDBOX_SANCTIONS_LIST,
        source: 'built in',
        version: 'sandbox',
        published_at: null,
        entry_count: null,
        added_count: null,
        removed_count: null,
        loaded_at: null,
        age_seconds: null,
        stale: false,
        last_attempt_at: null,
        last_success_at: null,
        last_error: null,
        last_error_at: null,
        retry_not_before: null,
      });
    return out;
  }
}
