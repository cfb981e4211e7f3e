/**
 * Entry: the sign-in pages are in this bundle; everything behind sign-in is a lazily loaded chunk,
 * so the sign-in page stays small (the build prints its gzip size).
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, StrictMode, Suspense, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router';
import { RegisterPage, SignInPage, VerifyEmailPage } from './auth/AuthPages';
import { createQueryClient } from './query';
import { SessionProvider, useSession } from './session';
import './styles.css';
import { Skeleton } from './ui/states';

const Shell = lazy(() => import('./app/Shell'));

const queryClient = createQueryClient();

function Loading() {
  return <Skeleton what="the dashboard" lines={3} />;
}

/** Restores the session from the refresh token (reload) or sends the visitor to sign in. */
function RequireSession() {
  const { api, me, loadMe } = useSession();
  const location = useLocation();
  const [state, setState] = useState<'checking' | 'out'>(
    me ? 'checking' : api.hasSession() ? 'checking' : 'out',
  );
  useEffect(() => {
    if (me || state === 'out') return;
    api
      .restore()
      .then((ok) => (ok ? loadMe().then(() => undefined) : setState('out')))
      .catch(() => setState('out'));
  }, [api, me, loadMe, state]);
  if (me)
    return (
      <Suspense fallback={<Loading />}>
        <Shell />
      </Suspense>
    );
  if (state === 'out')
    return (
      <Navigate to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`} replace />
    );
  return <Loading />;
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <BrowserRouter basename="/dashboard">
          <Routes>
            <Route path="/sign-in" element={<SignInPage />} />
            <Route path="/register" element={<RegisterPage />} />
            <Route path="/verify-email" element={<VerifyEmailPage />} />
            <Route path="/*" element={<RequireSession />} />
          </Routes>
        </BrowserRouter>
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
