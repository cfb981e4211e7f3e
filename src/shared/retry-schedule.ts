/** Backoff of due-work rows (owed emails, payment links to create): 1 min, 5 min, 15 min, 1 h, 3 h, 6 h… */
const DELAYS_SECONDS = [60, 300, 900, 3600, 3 * 3600, 6 * 3600];

/** The wait after the `attempts`-th failed attempt (1-based). */
export function retryDelaySeconds(attempts: number): number {
  return DELAYS_SECONDS[Math.min(Math.max(attempts, 1), DELAYS_SECONDS.length) - 1]!;
}
