/** Flags of the command line, shared by the commands. */

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
