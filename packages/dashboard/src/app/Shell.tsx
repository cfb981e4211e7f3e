/** The signed-in app: navigation by permission, the pages, and the re-login dialog over them. */
import { useState } from 'react';
import { NavLink, Route, Routes, useNavigate } from 'react-router';
import { LoginForm } from '../auth/LoginForm';
import { type Permission, useSession } from '../session';
import { Modal } from '../ui/dialogs';
import { ActivityDetailPage, ActivityPage } from './Activity';
import { BulkJobPage, BulkLinksPage, BulkUploadPage } from './BulkLinks';
import { ContractSendPage } from './ContractSend';
import { ContractDetailPage, ContractsPage } from './Contracts';
import { CustomersPage } from './Customers';
import { DevelopersPage } from './Developers';
import { InvoiceDetailPage, InvoicesPage } from './Invoices';
import { MonitoringDetailPage, MonitoringPage } from './Monitoring';
import { NotificationsPage, useUnreadCount } from './Notifications';
import { OpcoDetailPage } from './OpcoDetail';
import { OpcoFormPage } from './OpcoForm';
import { OpcosProjectsPage } from './OpcosProjects';
import { OverviewPage } from './Overview';
import { PayerFormPage } from './PayerForm';
import { CreatePaymentLinkPage } from './PaymentCreate';
import { PaymentDetailPage } from './PaymentDetail';
import { PaymentsPage } from './Payments';
import { ProjectFormPage } from './ProjectForm';
import { RecurringDetailPage, RecurringPage } from './Recurring';
import { RecurringCreatePage } from './RecurringActions';
import { RefundsPage } from './Refunds';
import { ScheduleCreatePage } from './ScheduleActions';
import { ScheduleDetailPage, SchedulesPage } from './Schedules';
import { SettingsPage } from './Settings';
import { TeamPage } from './Team';
import { TicketCreatePage, TicketDetailPage, TicketsPage } from './Tickets';
import { TravelRuleDetailPage, TravelRulePage } from './TravelRule';
import { OwnershipRequestPage, WalletDetailPage } from './WalletDetail';
import { WalletsPage } from './Wallets';
import { WebhookDeliveryPage } from './WebhookDelivery';
import { WebhooksPage } from './Webhooks';

const NAV: [string, string, Permission][] = [
  ['/', 'Overview', 'payments.read'],
  ['/payments', 'Payments', 'payments.read'],
  ['/refunds', 'Refunds', 'payments.read'],
  ['/recurring', 'Recurring payments', 'recurring.read'],
  ['/schedules', 'Payment schedules', 'schedules.read'],
  ['/wallets', 'Wallets', 'screening.read'],
  ['/customers', 'Customers', 'kyc.users.read'],
  ['/monitoring', 'Monitoring', 'monitoring.read'],
  ['/opcos', 'Opcos & projects', 'opcos.read'],
  ['/webhooks', 'Webhooks', 'webhooks.read'],
  ['/notifications', 'Notifications', 'notifications.read'],
  ['/activity', 'Activity log', 'activity.read'],
  ['/tickets', 'Support tickets', 'tickets.read'],
  ['/invoices', 'Invoices', 'billing.read'],
  ['/contracts', 'Contracts', 'contracts.read'],
  ['/bulk-links', 'Bulk payment links', 'payments.read'],
  ['/travel-rule', 'Travel rule', 'travel_rule.read'],
  ['/developers', 'Developers', 'credentials.read'],
  ['/team', 'Team', 'team.read'],
  ['/settings', 'Settings', 'account.read'],
];

function ReloginDialog() {
  const { relogin } = useSession();
  if (!relogin) return null;
  return (
    <Modal title="Your session has ended">
      <p>Sign in again to continue where you were. Nothing on this page is lost.</p>
      <LoginForm email={relogin.email || undefined} onDone={relogin.done} />
    </Modal>
  );
}

export default function Shell() {
  const { me, can, signOut } = useSession();
  const navigate = useNavigate();
  const [menuOpen, setMenuOpen] = useState(false);
  const unread = useUnreadCount(can('notifications.read'));
  if (!me) return null;
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">{me.client.company_name}</span>
        {me.environment === 'sandbox' ? <span className="env">Sandbox</span> : null}
        <button
          type="button"
          className="menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <span className="who">
          {me.account?.full_name} · {me.role}
        </span>
        <button
          type="button"
          className="secondary"
          onClick={async () => {
            await signOut();
            navigate('/sign-in', { replace: true });
          }}
        >
          Sign out
        </button>
      </header>
      <nav id="main-nav" aria-label="Main" className={menuOpen ? 'open' : ''}>
        <ul>
          {NAV.filter(([, , p]) => can(p)).map(([to, label]) => (
            <li key={to}>
              <NavLink to={to} end={to === '/'} onClick={() => setMenuOpen(false)}>
                {label}
                {to === '/notifications' && unread ? (
                  <span className="nav-count" data-testid="unread-count">
                    {unread}
                    <span className="visually-hidden"> unread</span>
                  </span>
                ) : null}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <Routes>
          <Route path="/" element={<OverviewPage />} />
          <Route path="/payments" element={<PaymentsPage />} />
          <Route path="/payments/new" element={<CreatePaymentLinkPage />} />
          <Route path="/payments/:id" element={<PaymentDetailPage />} />
          <Route path="/refunds" element={<RefundsPage />} />
          <Route path="/customers" element={<CustomersPage />} />
          <Route path="/opcos" element={<OpcosProjectsPage />} />
          <Route path="/opcos/new" element={<OpcoFormPage />} />
          <Route path="/opcos/:id" element={<OpcoDetailPage />} />
          <Route path="/opcos/:id/edit" element={<OpcoFormPage />} />
          <Route path="/projects/new" element={<ProjectFormPage />} />
          <Route path="/payers/new" element={<PayerFormPage />} />
          <Route path="/webhooks" element={<WebhooksPage />} />
          <Route path="/webhooks/deliveries/:id" element={<WebhookDeliveryPage />} />
          <Route path="/developers" element={<DevelopersPage />} />
          <Route path="/team" element={<TeamPage />} />
          <Route path="/settings" element={<SettingsPage />} />
          <Route path="/notifications" element={<NotificationsPage />} />
          <Route path="/activity" element={<ActivityPage />} />
          <Route path="/activity/:id" element={<ActivityDetailPage />} />
          <Route path="/tickets" element={<TicketsPage />} />
          <Route path="/tickets/new" element={<TicketCreatePage />} />
          <Route path="/tickets/:id" element={<TicketDetailPage />} />
          <Route path="/recurring" element={<RecurringPage />} />
          <Route path="/recurring/:id" element={<RecurringDetailPage />} />
          <Route path="/schedules" element={<SchedulesPage />} />
          <Route path="/schedules/:id" element={<ScheduleDetailPage />} />
          <Route path="/recurring/new" element={<RecurringCreatePage />} />
          <Route path="/schedules/new" element={<ScheduleCreatePage />} />
          <Route path="/wallets" element={<WalletsPage />} />
          <Route path="/wallets/:id" element={<WalletDetailPage />} />
          <Route path="/wallets/ownership/:id" element={<OwnershipRequestPage />} />
          <Route path="/monitoring" element={<MonitoringPage />} />
          <Route path="/monitoring/:id" element={<MonitoringDetailPage />} />
          <Route path="/invoices" element={<InvoicesPage />} />
          <Route path="/invoices/:id" element={<InvoiceDetailPage />} />
          <Route path="/contracts" element={<ContractsPage />} />
          <Route path="/contracts/new" element={<ContractSendPage />} />
          <Route path="/contracts/:id" element={<ContractDetailPage />} />
          <Route path="/bulk-links" element={<BulkLinksPage />} />
          <Route path="/bulk-links/new" element={<BulkUploadPage />} />
          <Route path="/bulk-links/:id" element={<BulkJobPage />} />
          <Route path="/travel-rule" element={<TravelRulePage />} />
          <Route path="/travel-rule/:id" element={<TravelRuleDetailPage />} />
          <Route path="*" element={<p>Page not found.</p>} />
        </Routes>
      </main>
      <ReloginDialog />
    </div>
  );
}
