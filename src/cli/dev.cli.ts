/** Developer commands against a running service over HTTP: `svc listen`, `svc trigger`. */
import { apiSessionFromEnv } from './api-session';
import { flag } from './args';
import type { CliCommand } from './command';
import { listen } from './listen';
import { SCENARIOS, TRIGGER_SYNOPSIS, triggerDetails, triggerUsage } from './trigger';

const LISTEN_DETAILS = [
  "Streams this client's events (GET /api/v1/webhooks/listen) and POSTs each to URL, signed like a",
  'real delivery with a signing secret made for this session (printed at start). Credential:',
  'SVC_API_KEY / SVC_API_SECRET (SVC_API_URL), as printed by `svc sandbox bootstrap`.',
].join('\n');

export const devCommands: Record<string, CliCommand> = {
  listen: {
    summary: "Forward this client's events to a local URL as they happen (like `stripe listen`)",
    usage: '--forward-to URL [--events type,type] [--url URL]',
    details: LISTEN_DETAILS,
    overHttp: true,
    async run(ctx, args) {
      const forwardTo = flag(args, 'forward-to');
      if (!forwardTo) {
        ctx.out(`Usage: svc listen ${devCommands.listen!.usage}\n\n${LISTEN_DETAILS}`);
        process.exitCode = 64;
        return;
      }
      const controller = new AbortController();
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => controller.abort());
      await listen({
        session: apiSessionFromEnv(args, ctx.config.port),
        forwardTo,
        events: flag(args, 'events'),
        out: ctx.out,
        signal: controller.signal,
      });
    },
  },
  trigger: {
    summary: 'Create a sandbox payment, verification or opco and drive it to an outcome (--help lists them)',
    usage: TRIGGER_SYNOPSIS,
    details: triggerDetails(),
    overHttp: true,
    async run(ctx, args) {
      const name = args.find((a) => !a.startsWith('--') && !isFlagValue(args, a));
      if (!name) {
        ctx.out(triggerUsage());
        process.exitCode = 64;
        return;
      }
      const scenario = SCENARIOS[name];
      if (!scenario) {
        ctx.out(`unknown scenario ${name}\n\n${triggerUsage()}`);
        process.exitCode = 64;
        return;
      }
      if (ctx.config.environment !== 'sandbox') throw new Error('svc trigger runs against a sandbox only');
      await scenario.run({
        session: apiSessionFromEnv(args, ctx.config.port),
        out: ctx.out,
        projectId: flag(args, 'project-id') ?? process.env.SVC_PROJECT_ID,
        userId: flag(args, 'user-id') ?? process.env.SVC_USER_ID,
        activationTimeoutMs: (ctx.config.sandboxOpcoActivationSeconds + 60) * 1000,
      });
      ctx.out(`Trigger succeeded: ${name}`);
    },
  },
};

/** True when `word` is the value of a `--flag value` pair. */
function isFlagValue(args: string[], word: string): boolean {
  const i = args.indexOf(word);
  return i > 0 && args[i - 1]!.startsWith('--') && !args[i - 1]!.includes('=');
}
