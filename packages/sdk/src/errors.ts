/** A non-2xx answer of the API, with the spec's `{detail}` body. */

/** One entry of a 422 validation answer. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type?: string;
  [key: string]: unknown;
}

/** " (needs permission payments.write; roles with it: owner, operations)" for a 403 that names one. */
function permissionHint(body: unknown): string {
  const b = body as { required_permission?: unknown; roles_with_permission?: unknown } | null;
  if (typeof b?.required_permission !== 'string') return '';
  const roles = Array.isArray(b.roles_with_permission) ? b.roles_with_permission.join(', ') : '';
  return ` (needs permission ${b.required_permission}${roles ? `; roles with it: ${roles}` : ''})`;
}

export class SvcApiError extends Error {
  override readonly name = 'SvcApiError';
  constructor(
    readonly status: number,
    /** The spec's message, or the list of validation issues of a 422. */
    readonly detail: string | ValidationIssue[],
    /** The `X-Request-Id` of the answer (quote it to support). */
    readonly requestId: string | null,
    readonly method: string,
    readonly url: string,
    /** The whole parsed body (e.g. extra fields next to `detail`). */
    readonly body: unknown,
  ) {
    super(
      `${method} ${url} answered ${status}: ${
        typeof detail === 'string' ? detail : detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ')
      }${permissionHint(body)}`,
    );
  }

  /** On a 403 for a missing permission: the permission the call needs. */
  get requiredPermission(): string | null {
    const value = (this.body as { required_permission?: unknown } | null)?.required_permission;
    return typeof value === 'string' ? value : null;
  }

  /** On a 403 for a missing permission: the roles that have it. */
  get rolesWithPermission(): string[] {
    const value = (this.body as { roles_with_permission?: unknown } | null)?.roles_with_permission;
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  }

  /** Builds the error from a response whose body has not been read yet. */
  static async fromResponse(res: Response, method: string): Promise<SvcApiError> {
    const text = await res.text().catch(() => '');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    const raw = (body as { detail?: unknown } | null)?.detail;
    const detail =
      typeof raw === 'string' || Array.isArray(raw)
        ? (raw as string | ValidationIssue[])
        : text || res.statusText;
    return new SvcApiError(res.status, detail, res.headers.get('x-request-id'), method, res.url, body);
  }
}

/** Throws the body's SvcApiError when openapi-fetch returned an error result. */
export function errorOf(result: { error?: unknown; response: Response }, method: string): SvcApiError | null {
  if (result.response.ok) return null;
  const body = result.error;
  const raw = (body as { detail?: unknown } | null | undefined)?.detail;
  const detail =
    typeof raw === 'string' || Array.isArray(raw)
      ? (raw as string | ValidationIssue[])
      : typeof body === 'string'
        ? body
        : result.response.statusText;
  return new SvcApiError(
    result.response.status,
    detail,
    result.response.headers.get('x-request-id'),
    method,
    result.response.url,
    body,
  );
}
