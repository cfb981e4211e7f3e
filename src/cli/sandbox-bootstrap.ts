/**
 * `svc sandbox bootstrap`: one command from a running sandbox service to a ready integration.
 * It talks to the service over its public HTTP API only (so it works on PGlite, whose database a
 * running server holds, and on PostgreSQL), creates or reuses a sandbox client with an owner, an
 * activated opco, a project, a payer user, an API credential (role `operations`: payments and
 * reads, no team or credential admin) and, with `--webhook-url`, the main webhook; then prints
 * environment variables. State is kept in `$SVC_DATA_DIR/sandbox-bootstrap.json` for reuse.
 * The owner's e-mail code is read from the local mail folder (`$SVC_DATA_DIR/mail`, the default
 * without SMTP_URL).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';

export interface BootstrapState {
  base_url: string;
  email: string;
  password: string;
  opco_id?: string;
  project_id?: string;
  user_id?: string;
  api_key?: string;
  api_secret?: string;
  webhook_url?: string;
  webhook_secret?: string;
}

export interface BootstrapOptions {
  baseUrl: string;
  webhookUrl?: string;
  returnUrl: string;
  /** Start over (a new client) even when a saved one works. */
  fresh: boolean;
  /** How long to wait for the sandbox to activate the opco. */
  activationTimeoutMs: number;
  log: (line: string) => void;
}

class HttpError extends Error {}

function client(base: string) {
  return async function call<T = Record<string, unknown>>(
    method: string,
    url: string,
    opts: { token?: string; body?: unknown; headers?: Record<string, string>; ok?: number[] } = {},
  ): Promise<{ status: number; body: T }> {
    const res = await fetch(`${base}/api/v1${url}`, {
      method,
      headers: {
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
        ...opts.headers,
      },
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });
    const text = await res.text();
    const body = (text ? JSON.parse(text) : {}) as T;
    if (!(opts.ok ?? [200, 201]).includes(res.status))
      throw new HttpError(`${method} ${url} answered ${res.status}: ${text.slice(0, 300)}`);
    return { status: res.status, body };
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The 6-digit code of the newest mail to `email` in the local mail folder (polls briefly). */
async function readMailCode(mailDir: string, email: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const files = fs.existsSync(mailDir) ? fs.readdirSync(mailDir).filter((f) => f.endsWith('.eml')) : [];
    for (const f of files.sort().reverse()) {
      const text = fs.readFileSync(path.join(mailDir, f), 'utf8');
      if (!text.toLowerCase().includes(email.toLowerCase())) continue;
      const body = text.slice(
        text.indexOf('\r\n\r\n') >= 0 ? text.indexOf('\r\n\r\n') : text.indexOf('\n\n'),
      );
      const code = /\b(\d{6})\b/.exec(body)?.[1];
      if (code) return code;
    }
    await sleep(200);
  }
  throw new Error(
    `no verification e-mail for ${email} in ${mailDir} (bootstrap needs the local mail folder: run it where the service runs, without SMTP_URL)`,
  );
}

async function login(call: ReturnType<typeof client>, s: BootstrapState): Promise<string | null> {
  const res = await call<{ access_token?: string }>('POST', '/auth/login', {
    body: { client_email: s.email, password: s.password },
    ok: [200, 401, 403, 429],
  });
  return res.status === 200 && res.body.access_token ? res.body.access_token : null;
}

async function exists(call: ReturnType<typeof client>, token: string, url: string): Promise<boolean> {
  return (await call('GET', url, { token, ok: [200, 404] })).status === 200;
}

/** Creates or reuses everything and returns the state (also saved to `stateFile`). */
export async function sandboxBootstrap(
  config: Pick<Config, 'dataDir'>,
  opts: BootstrapOptions,
): Promise<BootstrapState> {
  const stateFile = path.join(config.dataDir, 'sandbox-bootstrap.json');
  const mailDir = path.join(config.dataDir, 'mail');
  const call = client(opts.baseUrl);
  let s: BootstrapState | null = null;
  if (!opts.fresh && fs.existsSync(stateFile)) {
    const saved = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as BootstrapState;
    if (saved.base_url === opts.baseUrl) s = saved;
  }
  let token = s ? await login(call, s) : null;
  if (!s || !token) {
    const tag = randomBytes(4).toString('hex');
    s = {
      base_url: opts.baseUrl,
      email: `sandbox-${tag}@example.com`,
      password: randomBytes(12).toString('base64url'),
    };
    opts.log(`registering ${s.email}`);
    await call('POST', '/auth/register', {
      body: {
        email: s.email,
        password: s.password,
        company_name: `Sandbox ${tag}`,
        full_name: 'Sandbox Owner',
      },
    });
    const code = await readMailCode(mailDir, s.email);
    await call('POST', '/auth/register/verify-email', { body: { email: s.email, code } });
    token = await login(call, s);
    if (!token) throw new Error('could not log in with the new sandbox client');
  } else opts.log(`reusing ${s.email}`);
  const save = () => {
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(stateFile, `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 });
  };
  save();

  await call('PUT', '/auth/client/settings', { token, body: { callback_url: opts.returnUrl } });
  if (!s.opco_id || !(await exists(call, token, `/opcos/${s.opco_id}`))) {
    const opco = await call<{ opco_id: string }>('POST', '/opcos', {
      token,
      body: {
        opco_type: 'licensed_tpp_sole_trader',
        name: 'Sandbox Shop',
        domain: 'shop.example.com',
        country_code: 'GB',
        registration_number: '12345678',
        settlement_iban: 'GB82WEST12345698765432',
        mcc: '5411',
        sole_trader: { fullName: 'Sandbox Owner', address: '1 High St', dateOfBirth: '1990-01-01' },
      },
    });
    s.opco_id = opco.body.opco_id;
    await call('POST', `/opcos/${s.opco_id}/submit`, { token });
    save();
  }
  const deadline = Date.now() + opts.activationTimeoutMs;
  for (;;) {
    const o = await call<{ status: string }>('GET', `/opcos/${s.opco_id}`, { token });
    if (o.body.status === 'activated') break;
    if (Date.now() > deadline) throw new Error(`opco ${s.opco_id} is still ${o.body.status}`);
    opts.log(`waiting for the sandbox to activate the opco (status ${o.body.status})`);
    await sleep(1000);
  }
  if (!s.project_id || !(await exists(call, token, `/projects/${s.project_id}`))) {
    const p = await call<{ project_id: string }>('POST', '/projects', {
      token,
      body: { project_name: 'Sandbox web shop', opco_id: s.opco_id },
    });
    s.project_id = p.body.project_id;
    save();
  }
  if (!s.user_id || !(await exists(call, token, `/kyc/detail/${s.user_id}`))) {
    const u = await call<{ user_id: string }>('POST', '/kyc/users', {
      token,
      body: { email: `payer-${randomBytes(3).toString('hex')}@example.com`, first_name: 'Pat' },
    });
    s.user_id = u.body.user_id;
    save();
  }
  const credentialWorks =
    s.api_key &&
    s.api_secret &&
    (
      await call('POST', '/auth/api-token', {
        body: { api_key: s.api_key, api_secret: s.api_secret },
        ok: [200, 401, 429],
      })
    ).status === 200;
  if (!credentialWorks) {
    const c = await call<{ api_key: string; api_secret: string }>('POST', '/auth/api-credentials', {
      token,
      body: { label: 'sandbox bootstrap (backend)', role: 'operations' },
    });
    s.api_key = c.body.api_key;
    s.api_secret = c.body.api_secret;
    save();
  }
  if (opts.webhookUrl) {
    const sub = await call<{ webhook_secret?: string }>('PUT', '/webhooks/subscription', {
      token,
      body: { webhook_url: opts.webhookUrl, webhook_enabled: true },
    });
    // Shown once when the URL is first set; a reused client without the saved secret gets a new one.
    if (sub.body.webhook_secret) s.webhook_secret = sub.body.webhook_secret;
    else if (!s.webhook_secret)
      s.webhook_secret = (
        await call<{ webhook_secret: string }>('POST', '/webhooks/subscription/secret', { token })
      ).body.webhook_secret;
    s.webhook_url = opts.webhookUrl;
    save();
  }
  return s;
}

/** The state as shell `export` lines (values are URL-safe, no quoting needed beyond single quotes). */
export function envLines(s: BootstrapState): string[] {
  const vars: Record<string, string | undefined> = {
    SVC_API_URL: `${s.base_url}/api/v1`,
    SVC_API_KEY: s.api_key,
    SVC_API_SECRET: s.api_secret,
    SVC_OPCO_ID: s.opco_id,
    SVC_PROJECT_ID: s.project_id,
    SVC_USER_ID: s.user_id,
    SVC_OWNER_EMAIL: s.email,
    SVC_OWNER_PASSWORD: s.password,
    SVC_WEBHOOK_URL: s.webhook_url,
    SVC_WEBHOOK_SECRET: s.webhook_secret,
  };
  return Object.entries(vars)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `export ${k}='${v}'`);
}
