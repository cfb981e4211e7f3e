/**
 * A refund through the Token.io adapter (`npx tsx bench/tokenio-refunds.ts`): `initiateRefund`
 * (the look-up by refId that makes a retry safe, the read of the original payment, the POST, the
 * platform client's deadline, breaker and metrics, JSON and status mapping) against the Token.io
 * stand-in in its own process. Two floors: the bare `POST /refunds` sent raw with undici, and the
 * same three calls the adapter makes (GET /refunds?refIds, GET /v2/payments/{id}, POST /refunds)
 * sent raw one after the other. The adapter over the three raw calls is its own overhead; over the
 * bare POST it is the price of never sending a refund twice. Options (env): BENCH_DURATION (s,
 * default 15), BENCH_CONNECTIONS (calls in flight, default 10).
 */
import { request } from 'undici';
import { type Measured, printTable } from './report';
import { API_KEY, closedLoop, withBenchTokenio } from './tokenio';

const DURATION = Number(process.env.BENCH_DURATION ?? 15);
const auth = { authorization: `Basic ${API_KEY}` };

export async function runTokenioRefundsBench(): Promise<{
  adapter: Measured;
  raw: Measured;
  raw3: Measured;
}> {
  return withBenchTokenio(['--refund-settle-ms', '0'], async ({ base, bank, payee, registrationId }) => {
    const control = (cmd: unknown) =>
      fetch(`${base}/_standin/control`, { method: 'POST', body: JSON.stringify(cmd) }).then((r) => r.json());
    // One large paid payment that asked for the payer's account: every refund takes 0.01 of it.
    const paidPayment = async (): Promise<string> => {
      const { refId } = await bank.createSession({} as never);
      const s = await bank.startAuthorization({
        refId,
        bankId: 'ob-modelo',
        returnUrl: 'http://127.0.0.1:8000/checkout/x/return',
        payment: { amount: '1000000.00', currency: 'GBP', payee },
      });
      await control({ action: 'setPaymentStatus', paymentId: s.transferId, status: 'INITIATION_COMPLETED' });
      return s.transferId;
    };
    let n = 0;
    const nextRef = () => `b${(++n).toString(36).padStart(12, '0')}`;
    let paymentId = '';
    const rawPost = (ref: string) =>
      request(`${base}/refunds`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          initiation: {
            refId: ref,
            originalPaymentId: paymentId,
            amount: { value: '0.01', currency: 'GBP' },
            localInstrument: 'FASTER_PAYMENTS',
            description: 'Refund',
            onBehalfOfId: registrationId,
          },
        }),
      }).then(async (r) => {
        const b = (await r.body.json()) as { refund?: { status?: string } };
        return r.statusCode === 200 && b.refund?.status === 'INITIATION_COMPLETED';
      });
    const raw = () => rawPost(nextRef());
    const raw3 = async () => {
      const ref = nextRef();
      const list = await request(
        `${base}/refunds?limit=10&refIds=${ref}&onBehalfOfIds=${encodeURIComponent(registrationId)}`,
        { headers: auth },
      );
      await list.body.json();
      const pay = await request(`${base}/v2/payments/${encodeURIComponent(paymentId)}`, { headers: auth });
      await pay.body.json();
      return list.statusCode === 200 && pay.statusCode === 200 && (await rawPost(ref));
    };
    const viaAdapter = () =>
      bank
        .refunds!.initiateRefund({
          refundId: nextRef(),
          transactionId: 'bench',
          originalTransferId: paymentId,
          amount: '0.01',
          currency: 'GBP',
          description: 'Refund',
          payee,
        })
        .then((r) => r.outcome === 'succeeded');
    // Each scenario starts from an empty stand-in and a fresh payment (stored refunds slow the
    // stand-in's recount); each runs twice, alternating; the better run counts.
    const run = async (name: string, call: () => Promise<boolean>, seconds = DURATION) => {
      await control({ action: 'forget' });
      paymentId = await paidPayment();
      return closedLoop(name, seconds, call);
    };
    await run('warm-up', raw, 2);
    await run('warm-up', viaAdapter, 2);
    const best = (a: Measured, b: Measured) => (a.rps >= b.rps ? a : b);
    const r1 = await run('raw POST /refunds (undici)', raw);
    const t1 = await run('raw look-up + payment read + POST (undici)', raw3);
    const a1 = await run('refund through the Token.io adapter', viaAdapter);
    const r2 = await run('raw POST /refunds (undici)', raw);
    const t2 = await run('raw look-up + payment read + POST (undici)', raw3);
    const a2 = await run('refund through the Token.io adapter', viaAdapter);
    const rawM = best(r1, r2);
    const raw3M = best(t1, t2);
    const adapterM = best(a1, a2);
    printTable([rawM, raw3M], [{ ...adapterM, floor: raw3M }]);
    console.log(
      `\nadapter vs its three raw calls: ${(raw3M.rps / adapterM.rps).toFixed(2)}x the time per call (p50 ${adapterM.p50} vs ${raw3M.p50} ms); vs the bare POST: ${(rawM.rps / adapterM.rps).toFixed(2)}x (p50 ${rawM.p50} ms)`,
    );
    return { adapter: adapterM, raw: rawM, raw3: raw3M };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await runTokenioRefundsBench();
