/**
 * Webhook deliveries as Token.io documents them (docs "Webhooks"): an HTTP POST of
 * `{ eventType, payment }` to the URL set with PUT /webhook/config, for the event types subscribed.
 * The documentation shows no signature and no redelivery, so deliveries are unsigned and sent once.
 * Tests steer what a real network does wrong: drop the next N, send each twice, hold them and
 * release them late or in reverse order, or delay them.
 */

export interface WebhookConfig {
  type: string[];
  url: string;
}

export interface Delivery {
  eventType: string;
  body: string;
  /** HTTP status the receiver answered; null when it could not be reached; 'dropped' when never sent. */
  outcome: number | null | 'dropped';
  at: Date;
}

export class Notifier {
  config: WebhookConfig | null = null;
  readonly deliveries: Delivery[] = [];
  private dropLeft = 0;
  private duplicate = false;
  private holding = false;
  private delayMs = 0;
  private readonly held: { eventType: string; body: string }[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  /** The next `n` notifications are never sent. */
  dropNext(n = 1): void {
    this.dropLeft += n;
  }
  /** Every notification is sent twice until turned off. */
  setDuplicate(on: boolean): void {
    this.duplicate = on;
  }
  /** Each notification leaves `ms` after the change (late delivery). */
  setDelay(ms: number): void {
    this.delayMs = ms;
  }
  /** Keeps notifications back until release(). */
  hold(): void {
    this.holding = true;
  }
  /** Sends what was held, oldest first or (reverse) newest first. */
  async release(opts: { reverse?: boolean } = {}): Promise<void> {
    this.holding = false;
    const batch = this.held.splice(0);
    if (opts.reverse) batch.reverse();
    for (const h of batch) await this.post(h.eventType, h.body);
  }

  reset(): void {
    this.dropLeft = 0;
    this.duplicate = false;
    this.holding = false;
    this.delayMs = 0;
    this.held.length = 0;
  }

  send(eventType: string, payload: Record<string, unknown>): void {
    if (!this.config?.type.includes(eventType)) return;
    const body = JSON.stringify({ eventType, ...payload });
    if (this.dropLeft > 0) {
      this.dropLeft--;
      this.deliveries.push({ eventType, body, outcome: 'dropped', at: new Date() });
      return;
    }
    if (this.holding) {
      this.held.push({ eventType, body });
      if (this.duplicate) this.held.push({ eventType, body });
      return;
    }
    const go = async () => {
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      await this.post(eventType, body);
      if (this.duplicate) await this.post(eventType, body);
    };
    const p = go().finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /** Resolves once every delivery under way has been answered. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  private async post(eventType: string, body: string): Promise<void> {
    const url = this.config?.url;
    if (!url) return;
    let outcome: number | null = null;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      outcome = res.status;
    } catch {
      outcome = null;
    }
    this.deliveries.push({ eventType, body, outcome, at: new Date() });
  }
}
