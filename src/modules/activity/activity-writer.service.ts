/**
 * Appends activity-log entries (docs/guides/activity-logs.md). Call `recordActivity` with the
 * transaction that makes the change, like `emitEvent`: the change and its entry commit together.
 * The actor and request facts come from the current request (plugins/request-context); outside a
 * request the actor is `system`. Secrets, OTPs and tokens are always stored as "[redacted]".
 */
import type { FastifyRequest } from 'fastify';
import type { DbOrTx } from '../../db/client';
import { toSql } from '../../db/hot';
import { currentRequest } from '../../plugins/request-context';
import { newId } from '../../shared/ids';

export type ActivityActorType = 'client_user' | 'client_api' | 'service_internal' | 'system';

export interface ActivityActor {
  type: ActivityActorType;
  accountId: string | null;
  credentialId: string | null;
}

export interface ActivityTarget {
  type: string;
  id: string | null;
  label?: string | null;
}

export type ActivityChanges = Record<string, { from: unknown; to: unknown }>;

export interface ActivityInput {
  clientId: string;
  /** `<resource>.<verb>`, e.g. `payment_link.created`. */
  action: string;
  at: Date;
  target?: ActivityTarget | null;
  changes?: ActivityChanges | null;
  metadata?: Record<string, unknown>;
  outcome?: 'success' | 'failure';
  /** Overrides the actor taken from the current request (e.g. a failed login names the account tried). */
  actor?: ActivityActor;
  /** The request whose facts to record, when the caller runs outside its async context (hooks). */
  request?: FastifyRequest;
  /** Record the route pattern (`/projects/:project_id`) instead of the routed path with its ids. */
  routePatternOnly?: boolean;
}

export const REDACTED = '[redacted]';

/** Keys whose values are never stored: secrets, passwords, OTPs, codes, tokens, keys. */
const SECRET_KEY =
  /(secret|password|passwd|otp|token|api_key|apikey|private_key|signature|(^|_)code$|^code)/i;

export function redactSecrets<T>(value: T, depth = 0): T {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (SECRET_KEY.test(k)) {
      out[k] =
        v !== null && typeof v === 'object' && 'from' in (v as object) && 'to' in (v as object)
          ? { from: REDACTED, to: REDACTED }
          : REDACTED;
    } else out[k] = redactSecrets(v, depth + 1);
  }
  return out as T;
}

/** The actor of the current request: client token, staff token, or system. */
export function actorFromRequest(request: FastifyRequest | undefined): ActivityActor {
  if (request?.clientAuth) {
    return {
      type: request.clientAuth.actorType,
      accountId: request.clientAuth.accountId,
      credentialId: request.clientAuth.credentialId,
    };
  }
  // Staff act as service_internal with no staff identity, as in events.
  if (request?.staffAuth) return { type: 'service_internal', accountId: null, credentialId: null };
  return { type: 'system', accountId: null, credentialId: null };
}

/** The path as routed, with capability tokens (any `:…token…` parameter) left as the placeholder. */
export function loggablePath(request: FastifyRequest): string {
  const pattern = request.routeOptions?.url;
  if (!pattern) return request.url.split('?')[0] ?? request.url;
  const params = (request.params ?? {}) as Record<string, string>;
  return pattern.replace(/:([A-Za-z0-9_]+)/g, (whole, name: string) =>
    /token/i.test(name) || params[name] === undefined ? whole : encodeURIComponent(params[name]!),
  );
}

/** The route as declared, with every parameter as its placeholder (an unmatched route: its path). */
function routePattern(request: FastifyRequest): string {
  return request.routeOptions?.url ?? request.url.split('?')[0] ?? request.url;
}

function header(request: FastifyRequest, name: string): string | null {
  const v = request.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s ? s.slice(0, 512) : null;
}

/** The bound values of one entry, in ACTIVITY_COLUMNS order (actor email and label are looked up in SQL). */
export function activityValues(input: ActivityInput): unknown[] {
  const request = input.request ?? currentRequest();
  const actor = input.actor ?? actorFromRequest(request);
  return [
    newId(),
    input.clientId,
    input.at.toISOString(),
    input.action,
    input.outcome ?? 'success',
    actor.type,
    actor.accountId,
    actor.credentialId,
    input.target?.type ?? null,
    input.target?.id ?? null,
    input.target?.label ?? null,
    request?.id ?? null,
    request?.ip ?? null,
    request ? header(request, 'user-agent') : null,
    request?.method ?? null,
    request ? (input.routePatternOnly ? routePattern(request) : loggablePath(request)) : null,
    input.changes ? JSON.stringify(redactSecrets(input.changes)) : null,
    JSON.stringify(redactSecrets(input.metadata ?? {})),
  ];
}

/**
 * `insert into activity_logs … select …` of one entry whose 18 values (activityValues) are the
 * placeholders $from..$(from+17): the actor's email and the credential's label are read in the
 * same statement, so an entry costs no round trip of its own. `from` lets a caller embed it in a
 * larger statement.
 */
export function activityInsertText(from = 1): string {
  const p = (i: number) => `$${from + i}`;
  return `insert into activity_logs (
      id, client_id, occurred_at, action, outcome, actor_type, actor_account_id, actor_email,
      actor_credential_id, actor_credential_label, target_type, target_id, target_label,
      request_id, ip, user_agent, method, path, changes, metadata)
    select ${p(0)}::uuid, ${p(1)}::uuid, ${p(2)}::timestamptz, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}::uuid,
      (select a.email from accounts a where a.id = ${p(6)}::uuid),
      ${p(7)}::uuid, (select k.label from api_credentials k where k.id = ${p(7)}::uuid),
      ${p(8)}, ${p(9)}, ${p(10)}, ${p(11)}, ${p(12)}, ${p(13)}, ${p(14)}, ${p(15)},
      ${p(16)}::jsonb, ${p(17)}::jsonb`;
}

const ACTIVITY_INSERT = activityInsertText();

/** One INSERT … SELECT in the caller's transaction. */
export async function recordActivity(tx: DbOrTx, input: ActivityInput): Promise<void> {
  await tx.execute(toSql(ACTIVITY_INSERT, activityValues(input)));
}

/** `{field: {from, to}}` for the fields whose value differs between two snapshots. */
export function diffChanges(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  fields: readonly string[] = Object.keys(after),
): ActivityChanges | null {
  const out: ActivityChanges = {};
  for (const f of fields) {
    const from = before[f] ?? null;
    const to = after[f] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) out[f] = { from, to };
  }
  return Object.keys(out).length > 0 ? out : null;
}

/**
 * Runs `write` in a transaction and appends the entry `entryOf` makes from its result in that
 * same transaction (null: no entry, e.g. nothing changed).
 */
export async function withActivity<T>(
  db: DbOrTx,
  write: (tx: DbOrTx) => Promise<T>,
  entryOf: (result: T) => ActivityInput | null,
): Promise<T> {
  return db.transaction(async (tx) => {
    const result = await write(tx);
    const entry = entryOf(result);
    if (entry) await recordActivity(tx, entry);
    return result;
  });
}
