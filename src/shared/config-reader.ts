/**
 * The one reader of environment variables: every setting of the service (src/config.ts) and of each
 * provider definition (`readConfig`, src/providers/definition.ts) is read through it, so every bad
 * value is listed in `problems` and the server stops at start with all of them.
 */
export type Env = Record<string, string | undefined>;

export class ConfigReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  optional(name: string): string | null {
    return this.raw(name) ?? null;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const v = this.raw(name);
    if (v === undefined) return fallback;
    if (!/^-?\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      this.problems.push(`${name} must be an integer between ${min} and ${max} (got "${v}")`);
      return fallback;
    }
    return Number(v);
  }

  bool(name: string, fallback: boolean): boolean {
    const v = this.raw(name)?.toLowerCase();
    if (v === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(v)) return true;
    if (['0', 'false', 'no', 'off'].includes(v)) return false;
    this.problems.push(`${name} must be true or false (got "${v}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
    const v = this.raw(name);
    if (v === undefined) return fallback;
    if (!values.includes(v as T)) {
      this.problems.push(`${name} must be one of ${values.join(', ')} (got "${v}")`);
      return fallback;
    }
    return v as T;
  }

  url(name: string, fallback: string | null, protocols: string[]): string | null {
    const v = this.raw(name);
    if (v === undefined) return fallback;
    try {
      const u = new URL(v);
      if (!protocols.includes(u.protocol)) throw new Error('protocol');
      return v.replace(/\/+$/, '');
    } catch {
      this.problems.push(`${name} must be a ${protocols.map((p) => p.replace(':', '')).join(' or ')} URL`);
      return fallback;
    }
  }

  seconds(name: string, fallback: number[]): number[] {
    const v = this.raw(name);
    if (v === undefined) return fallback;
    const parts = v.split(',').map((p) => p.trim());
    if (parts.length !== 8 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) {
      this.problems.push(`${name} must be 8 comma-separated non-negative numbers of seconds (got "${v}")`);
      return fallback;
    }
    return parts.map(Number);
  }

  /** 1-5 comma-separated whole numbers of hours (1-8760). */
  hours(name: string, fallback: number[]): number[] {
    const v = this.raw(name);
    if (v === undefined) return fallback;
    const parts = v.split(',').map((p) => p.trim());
    if (parts.length > 5 || parts.some((p) => !/^\d+$/.test(p) || Number(p) < 1 || Number(p) > 8760)) {
      this.problems.push(`${name} must be 1-5 comma-separated whole numbers of hours (got "${v}")`);
      return fallback;
    }
    return parts.map(Number);
  }
}
