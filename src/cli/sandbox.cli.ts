/** Sandbox developer commands that drive a running service over HTTP (`svc sandbox …`). */
import { flag, serviceUrl } from './args';
import type { CliCommand } from './command';
import { envLines, sandboxBootstrap } from './sandbox-bootstrap';

export const sandboxCommands: Record<string, CliCommand> = {
  'sandbox bootstrap': {
    summary: 'Create or reuse a ready sandbox integration on the running service; prints env vars',
    usage: '[--url URL] [--webhook-url URL] [--return-url URL] [--fresh]',
    details: [
      'Over the public API of the running sandbox service (--url, else SVC_URL, else localhost on PORT):',
      'registers an owner (the e-mail code is read from $SVC_DATA_DIR/mail), waits for an activated',
      'opco, creates a project, a payer user, an API credential (role operations) and, with',
      '--webhook-url, the main webhook; then prints export lines for eval. The state is kept in',
      '$SVC_DATA_DIR/sandbox-bootstrap.json and reused on later runs; --fresh starts a new client.',
    ].join('\n'),
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
