/** Sandbox developer commands that drive a running service over HTTP (`svc sandbox …`). */
import type { CliCommand } from './commands';
import { envLines, sandboxBootstrap } from './sandbox-bootstrap';

/** `--name value` or `--name=value`. */
export function flag(args: string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === `--${name}`) return args[i + 1];
    if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
  }
  return undefined;
}

/** The running service: `--url`, else SVC_URL, else localhost on PORT. */
export function serviceUrl(args: string[], port: number): string {
  return (flag(args, 'url') ?? process.env.SVC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
}

export const sandboxCommands: Record<string, CliCommand> = {
  'sandbox bootstrap': {
    summary: 'Create or reuse a ready sandbox integration on the running service; prints env vars',
    overHttp: true,
    async run(ctx, args) {
      if (ctx.config.environment !== 'sandbox')
        throw new Error('sandbox bootstrap runs against a sandbox only');
      const baseUrl = serviceUrl(args, ctx.config.port);
      const state = await sandboxBootstrap(ctx.config, {
        baseUrl,
        webhookUrl: flag(args, 'webhook-url'),
        returnUrl: flag(args, 'return-url') ?? `${baseUrl}/healthz`,
        fresh: args.includes('--fresh'),
        activationTimeoutMs: (ctx.config.sandboxOpcoActivationSeconds + 60) * 1000,
        log: (line) => process.stderr.write(`# ${line}\n`),
      });
      for (const line of envLines(state)) ctx.out(line);
    },
  },
};
