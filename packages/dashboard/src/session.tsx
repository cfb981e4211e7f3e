/**
 * The signed-in session: the API client, the caller (GET /auth/me) and the re-login dialog.
 *
 * The access token stays in memory only. The refresh token is kept in sessionStorage (never
 * localStorage) so a reload of the tab keeps the session; it is per tab, gone when the tab closes,
 * and rotated on every refresh (docs/guides/dashboard.md, "Dashboard session", explains the trade-off).
 */

import type { paths } from '@svc/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useMemo, useRef, useState } from 'react';
import { type ApiClient, createClient } from './api';

const REFRESH_KEY = 'svc.dashboard.refresh';

/** The caller, as GET /auth/me answers (the SDK's type). */
export type Me = paths['/api/v1/auth/me']['get']['responses'][200]['content']['application/json'];
/** A permission name (the SDK's union: a misspelt or removed permission is a compile error). */
export type Permission = Me['permissions'][number];

interface SessionValue {
  api: ApiClient;
  me: Me | null;
  /** After tokens were obtained (login, verify-otp, refresh): load the caller. */
  loadMe(): Promise<Me>;
  signOut(): Promise<void>;
  can(permission: Permission): boolean;
  /** Set while a request waits for the user to sign in again. */
  relogin: { email: string; done(): void } | null;
}

const SessionContext = createContext<SessionValue | null>(null);

function storedRefresh(): string | null {
  try {
    return window.sessionStorage.getItem(REFRESH_KEY);
  } catch {
    return null;
  }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [me, setMe] = useState<Me | null>(null);
  const [relogin, setRelogin] = useState<SessionValue['relogin']>(null);
  const meRef = useRef<Me | null>(null);
  const waiting = useRef<Promise<void> | null>(null);
  const signingOut = useRef(false);
  const queries = useQueryClient();

  const api = useMemo(
    () =>
      createClient({
        baseUrl: window.location.origin,
        refreshToken: storedRefresh(),
        onTokens: (t) => {
          try {
            if (t.refreshToken) window.sessionStorage.setItem(REFRESH_KEY, t.refreshToken);
            else window.sessionStorage.removeItem(REFRESH_KEY);
          } catch {
            // Storage disabled: the session simply does not survive a reload.
          }
        },
        onSessionLost: () => {
          // Signed out on purpose (or never signed in, or signing out now): nothing to wait for.
          if (!meRef.current || signingOut.current) return Promise.reject(new Error('Not signed in'));
          waiting.current ??= new Promise<void>((resolve) => {
            setRelogin({
              email: meRef.current?.account?.email ?? '',
              done: () => {
                waiting.current = null;
                setRelogin(null);
                resolve();
              },
            });
          });
          return waiting.current;
        },
      }),
    [],
  );

  const loadMe = useCallback(async () => {
    const m = await api.get<Me>('/auth/me');
    meRef.current = m;
    setMe(m);
    return m;
  }, [api]);

  // Tokens first, then the caller: clearing `me` while the tokens still work would let the session
  // be restored by a request racing the logout.
  const signOut = useCallback(async () => {
    signingOut.current = true;
    try {
      await api.logout().catch(() => undefined);
    } finally {
      meRef.current = null;
      setMe(null);
      // Nothing read under this session may be shown to the next one.
      queries.clear();
      signingOut.current = false;
    }
  }, [api, queries]);

  const value = useMemo<SessionValue>(
    () => ({ api, me, loadMe, signOut, relogin, can: (p) => me?.permissions.includes(p) ?? false }),
    [api, me, loadMe, signOut, relogin],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}
