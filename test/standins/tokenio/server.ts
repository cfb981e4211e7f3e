/**
 * A stand-in for Token.io's Open Banking API, written from Token.io's documentation
 * (docs/vendors/tokenio.md), for tests, the bench and trying production mode locally:
 *
 *   npx tsx test/standins/tokenio/server.ts --port 4010 [--api-key KEY] [--member-id m:...] [--auto-approve-ms 2000]
 *
 * Tests import `startTokenioStandin({...})`, which answers the base URL and a control handle
 * (failures per operation, notification faults, status moves). The same commands are accepted as
 * JSON by `POST /_standin/control` when the stand-in runs as its own process.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { type Fault, Faults, type Operation } from './faults';
import type { PaymentStatus, RefundStatus, SubTppStatus, VrpConsentStatus } from './fixtures';
import type { Notifier } from './notifier';
import { handleRequest } from './routes';
import { type StoreOptions, TokenioStore } from './store';

export interface StandinOptions extends Partial<StoreOptions> {
  port?: number;
  host?: string;
  /** Accepted `Authorization: Basic` value; default `standin-api-key`; null refuses API keys. */
  apiKey?: string | null;
  /** Public keys (PEM or KeyObject) by key id, for JWT-authenticated requests. */
  jwtKeys?: Record<string, string | KeyObject>;
  /** Token.io requires an https callbackUrl; local tests use http (default false). */
  requireHttpsCallback?: boolean;
}

export interface StandinControl {
  store: TokenioStore;
  notifier: Notifier;
  /** The next `times` calls of `operation` meet `fault`. */
  fail(operation: Operation | '*', fault: Fault, times?: number): void;
  clearFaults(): void;
  setPaymentStatus(paymentId: string, status: PaymentStatus, reason?: string): void;
  setConsentStatus(consentId: string, status: VrpConsentStatus, reason?: string): void;
  decideSubTpp(subTppId: string, status: SubTppStatus, reason?: string): void;
  /** Moves a refund (announced as REFUND_STATUS_CHANGED). */
  setRefundStatus(refundId: string, status: RefundStatus, reason?: string): void;
  /** The bank's outcome of a payment that ended without a final status (see store.reportLate). */
  reportLate(paymentId: string, status: 'INITIATION_COMPLETED' | 'INITIATION_REJECTED'): void;
  /** Forgets every fault and notification mode (not the data). */
  reset(): void;
}

export interface RunningStandin {
  url: string;
  memberId: string;
  apiKey: string | null;
  control: StandinControl;
  close(): Promise<void>;
}

export async function startTokenioStandin(opts: StandinOptions = {}): Promise<RunningStandin> {
  const memberId = opts.memberId ?? 'm:standin0000000000000000000:5zKtXEAq';
  const apiKey = opts.apiKey === undefined ? 'standin-api-key' : opts.apiKey;
  const store = new TokenioStore({
    memberId,
    bankAckDelayMs: opts.bankAckDelayMs ?? 0,
    processingMs: opts.processingMs ?? 0,
    vrpSettleMs: opts.vrpSettleMs ?? 0,
    subTppReviewMs: opts.subTppReviewMs === undefined ? null : opts.subTppReviewMs,
    refundSettleMs: opts.refundSettleMs ?? 0,
  });
  const faults = new Faults();
  const jwtKeys: Record<string, KeyObject> = {};
  for (const [kid, k] of Object.entries(opts.jwtKeys ?? {}))
    jwtKeys[kid] = typeof k === 'string' ? createPublicKey(k) : k;

  const control: StandinControl = {
    store,
    notifier: store.notifier,
    fail: (op, fault, times) => faults.add(op, fault, times),
    clearFaults: () => faults.clear(),
    setPaymentStatus: (id, status, reason) => void store.setPaymentStatus(id, status, reason),
    reportLate: (id, status) => void store.reportLate(id, status),
    setConsentStatus: (id, status, reason) => void store.setConsentStatus(id, status, reason),
    decideSubTpp: (id, status, reason) => void store.decideSubTpp(id, status, reason),
    setRefundStatus: (id, status, reason) => void store.setRefundStatus(id, status, reason),
    reset: () => {
      faults.clear();
      store.listAllRefunds();
      store.notifier.reset();
      store.listLagMs = 0;
    },
  };

  const server = http.createServer((req, res) => {
    handleRequest(
      {
        store,
        faults,
        auth: { memberId, apiKey, jwtKeys },
        requireHttpsCallback: opts.requireHttpsCallback ?? false,
        control: (cmd) => runCommand(control, cmd),
      },
      req,
      res,
    ).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const url = `http://${opts.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  store.baseUrl = url;
  return {
    url,
    memberId,
    apiKey,
    control,
    close: async () => {
      store.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `POST /_standin/control` commands (the same as the control handle's methods). */
async function runCommand(c: StandinControl, cmd: Record<string, unknown>): Promise<unknown> {
  const s = (k: string) => String(cmd[k] ?? '');
  switch (cmd.action) {
    case 'fail':
      c.fail(s('operation') as Operation, cmd.fault as Fault, Number(cmd.times ?? 1));
      return {};
    case 'reset':
      c.reset();
      return {};
    case 'forget':
      // Drops payments and consents (the bench calls it between scenarios; sub-TPPs stay).
      c.store.payments.clear();
      c.store.consents.clear();
      c.store.refunds.clear();
      return {};
    case 'setPaymentStatus':
      c.setPaymentStatus(s('paymentId'), s('status') as PaymentStatus, cmd.reason as string | undefined);
      return {};
    case 'reportLate':
      c.reportLate(s('paymentId'), s('status') as 'INITIATION_COMPLETED');
      return {};
    case 'setRefundStatus':
      c.setRefundStatus(s('refundId'), s('status') as RefundStatus, cmd.reason as string | undefined);
      return {};
    case 'decideSubTpp':
      c.decideSubTpp(s('subTppId'), s('status') as SubTppStatus, cmd.reason as string | undefined);
      return {};
    case 'notifications':
      if (typeof cmd.drop === 'number') c.notifier.dropNext(cmd.drop);
      if (typeof cmd.duplicate === 'boolean') c.notifier.setDuplicate(cmd.duplicate);
      if (typeof cmd.delayMs === 'number') c.notifier.setDelay(cmd.delayMs);
      if (cmd.hold === true) c.notifier.hold();
      if (cmd.release === true) await c.notifier.release({ reverse: cmd.reverse === true });
      return {};
    case 'state':
      return {
        payments: [...c.store.payments.values()],
        vrpConsents: [...c.store.consents.values()],
        subTpps: [...c.store.subTpps.values()],
        refunds: [...c.store.refunds.values()],
        webhook: c.notifier.config,
        deliveries: c.notifier.deliveries,
      };
    default:
      return { error: 'unknown action' };
  }
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const review = arg('auto-approve-ms');
  startTokenioStandin({
    port: Number(arg('port') ?? 4010),
    host: arg('host') ?? '127.0.0.1',
    apiKey: arg('api-key') ?? 'standin-api-key',
    memberId: arg('member-id'),
    subTppReviewMs: review === undefined ? 2000 : Number(review),
    processingMs: Number(arg('processing-ms') ?? 1000),
    vrpSettleMs: Number(arg('vrp-settle-ms') ?? 2000),
    refundSettleMs: Number(arg('refund-settle-ms') ?? 2000),
  }).then((s) => {
    process.stdout.write(
      `Token.io stand-in listening on ${s.url} (member ${s.memberId}, API key "${s.apiKey}")\n`,
    );
  });
}
