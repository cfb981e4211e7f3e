/**
 * A tiny HTML templating helper for the server-rendered pages: every interpolated value is
 * escaped unless it is itself the result of `html` (or explicitly marked `raw`).
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

type Interp = SafeHtml | string | number | boolean | null | undefined | Interp[];

function render(v: Interp): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(v);
}

export function html(strings: TemplateStringsArray, ...values: Interp[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}

/** Trusted markup (constants only, never user input). */
export const raw = (s: string): SafeHtml => new SafeHtml(s);

/** The icon links every page of ours puts in its head (served by src/modules/site/favicon.routes.ts). */
export const FAVICON_LINKS = raw(
  '<link rel="icon" href="/favicon.ico" sizes="32x32"><link rel="icon" href="/favicon.svg" type="image/svg+xml">',
);
