/**
 * The component names of the OpenAPI document: every object schema a feature's `*.schemas.ts`
 * exports gets one name (by identity, see src/platform/openapi/schema-names.ts), so generated
 * clients read like the domain (`Transaction`, `TransactionList`, `Opco`, …) instead of
 * operation names. The domain objects carry the API's resource names (below); any other export is
 * named after itself with its area in front (`DeliveryDetailSchema` in webhooks ->
 * `WebhookDeliveryDetail`, a `FooBody` -> `…FooRequest`): give it a proper name here when it is a
 * domain object. Request query, path and header schemas are parameters, not components, and are
 * skipped.
 */
import * as activity from '../modules/activity/activity.schemas';
import * as admin from '../modules/admin/admin.schemas';
import * as credentials from '../modules/auth/api-keys/credentials.schemas';
import * as login from '../modules/auth/login/login.schemas';
import * as mfa from '../modules/auth/mfa/mfa.schemas';
import * as registration from '../modules/auth/registration/registration.schemas';
import * as clientSettings from '../modules/auth/settings/settings.schemas';
import * as team from '../modules/auth/team/team.schemas';
import * as billing from '../modules/billing/billing.schemas';
import * as bulk from '../modules/bulk-links/bulk.schemas';
import * as contracts from '../modules/contracts/contracts.schemas';
import * as flows from '../modules/contracts/flows/flows.schemas';
import * as customers from '../modules/customers/customers.schemas';
import * as kyc from '../modules/kyc/kyc.schemas';
import * as monitoring from '../modules/monitoring/monitoring.schemas';
import * as notifications from '../modules/notifications/notifications.schemas';
import * as opcos from '../modules/opcos/opcos.schemas';
import * as payments from '../modules/payments/payments.schemas';
import * as projects from '../modules/projects/projects.schemas';
import * as recurring from '../modules/recurring/recurring.schemas';
import * as refunds from '../modules/refunds/refunds.schemas';
import * as schedules from '../modules/schedules/schedules.schemas';
import * as ownership from '../modules/screening/ownership.schemas';
import * as screening from '../modules/screening/screening.schemas';
import * as tickets from '../modules/tickets/tickets.schemas';
import * as travelRule from '../modules/travel-rule/travel-rule.schemas';
import * as webhooks from '../modules/webhooks/webhooks.schemas';
import * as workflows from '../modules/workflows/workflows.schemas';
import { isSchemaNameTaken, nameSchema } from '../platform/openapi/schema-names';

type Area = [prefix: string, exports: Record<string, unknown>, names: Record<string, string>];

/** Per schemas file: the area prefix (for taken names) and the domain names of its exports. */
const AREAS: Area[] = [
  [
    'Payment',
    payments,
    {
      TransactionSchema: 'Transaction',
      TransactionListSchema: 'TransactionList',
      StatusEventSchema: 'TransactionStatusEvent',
      StatusEventListSchema: 'TransactionStatusEventList',
      PaylinkBodySchema: 'PaylinkRequest',
      SimulateBodySchema: 'TransactionSimulationRequest',
      NotificationAckSchema: 'BankNotificationAck',
    },
  ],
  [
    'Refund',
    refunds,
    {
      RefundSchema: 'Refund',
      RefundListSchema: 'RefundList',
      TransactionRefundListSchema: 'TransactionRefundList',
      CreateRefundBody: 'RefundCreateRequest',
      RefundSimulateBody: 'RefundSimulationRequest',
    },
  ],
  [
    'Opco',
    opcos,
    {
      OpcoSchema: 'Opco',
      OpcoListSchema: 'OpcoList',
      CreateOpcoBody: 'OpcoCreateRequest',
      UpdateOpcoBody: 'OpcoUpdateRequest',
      PersonSchema: 'OpcoPerson',
      SoleTraderSchema: 'OpcoSoleTrader',
      MccCodesSchema: 'MccCodeList',
    },
  ],
  [
    'Project',
    projects,
    {
      ProjectSchema: 'Project',
      ProjectListSchema: 'ProjectList',
      CreateProjectBody: 'ProjectCreateRequest',
      UpdateProjectBody: 'ProjectUpdateRequest',
    },
  ],
  [
    'Customer',
    customers,
    {
      UserSchema: 'User',
      UserListSchema: 'UserList',
      CreateUserBody: 'UserCreateRequest',
      BusinessCustomerSchema: 'BusinessCustomer',
      BusinessListSchema: 'BusinessCustomerList',
      CreateBusinessBody: 'BusinessCustomerCreateRequest',
    },
  ],
  [
    'Verification',
    kyc,
    {
      VerificationRecordSchema: 'VerificationRecord',
      HistorySchema: 'VerificationHistory',
      LinkSchema: 'VerificationLink',
      LinkBody: 'VerificationLinkRequest',
      LevelSchema: 'VerificationLevel',
      LevelListSchema: 'VerificationLevelList',
      CustomLevelBody: 'VerificationLevelCreateRequest',
      AttestationBody: 'AttestationRequest',
      SimulateBody: 'VerificationSimulationRequest',
      NotificationAckSchema: 'VerificationNotificationAck',
    },
  ],
  [
    'Auth',
    credentials,
    {
      CredentialSchema: 'ApiCredential',
      CredentialListSchema: 'ApiCredentialList',
      CreatedCredentialSchema: 'ApiCredentialWithSecret',
      CreateCredentialBody: 'ApiCredentialCreateRequest',
      ResetSecretResponse: 'ApiCredentialSecret',
      ApiTokenBody: 'ApiTokenRequest',
      ApiTokenResponse: 'ApiToken',
      RoleSchema: 'CredentialRole',
    },
  ],
  [
    'Auth',
    login,
    {
      LoginBody: 'LoginRequest',
      LoginResponse: 'LoginResult',
      TokenPairResponse: 'TokenPair',
      OtpPendingResponse: 'OtpChallenge',
      VerifyOtpBody: 'VerifyOtpRequest',
      ChallengeBody: 'LoginChallengeRequest',
      SentResponse: 'CodeSendResult',
      RefreshBody: 'RefreshRequest',
      LogoutBody: 'LogoutRequest',
      LoggedOutResponse: 'LogoutResult',
    },
  ],
  [
    'Auth',
    registration,
    {
      RegisterBody: 'RegisterRequest',
      RegisterResponse: 'Registration',
      VerifyEmailBody: 'VerifyEmailRequest',
      VerifyEmailResponse: 'EmailVerification',
      ResendBody: 'ResendVerificationRequest',
      SentResponse: 'VerificationEmailResult',
    },
  ],
  [
    'Mfa',
    mfa,
    {
      MfaSettingsResponse: 'MfaClientDefaults',
      MfaSettingsBody: 'MfaClientDefaultsRequest',
      MyMfaResponse: 'AccountMfaSettings',
      MyMfaBody: 'AccountMfaSettingsRequest',
      EnrollStartResponse: 'TotpEnrollment',
      EnrollConfirmBody: 'TotpEnrollConfirmRequest',
    },
  ],
  ['Client', clientSettings, { SettingsSchema: 'ClientSettings', SettingsBody: 'ClientSettingsRequest' }],
  [
    'Team',
    team,
    {
      AccountSchema: 'TeamAccount',
      AccountListSchema: 'TeamAccountList',
      CreateAccountBody: 'TeamAccountCreateRequest',
      UpdateAccountBody: 'TeamAccountUpdateRequest',
    },
  ],
  [
    'Admin',
    admin,
    {
      AdminClientSchema: 'AdminClient',
      ClientListSchema: 'AdminClientList',
      UpdateClientBody: 'AdminClientUpdateRequest',
      SettingsSchema: 'PlatformSettings',
      SettingsBody: 'PlatformSettingsRequest',
      StaffLoginBody: 'StaffLoginRequest',
      StaffTokenSchema: 'StaffToken',
      VisibilityGroupsSchema: 'VisibilityGroups',
      VisibilityGroupsBody: 'VisibilityGroupsRequest',
      ReasonBody: 'AdminReasonRequest',
    },
  ],
  [
    'Workflow',
    workflows,
    {
      WorkflowSchema: 'Workflow',
      WorkflowListSchema: 'WorkflowList',
      PublishedWorkflowSchema: 'PublishedWorkflow',
      CreateWorkflowBody: 'WorkflowCreateRequest',
      UpdateWorkflowBody: 'WorkflowUpdateRequest',
      ForkWorkflowBody: 'WorkflowForkRequest',
      RunSchema: 'WorkflowRun',
      RunDetailSchema: 'WorkflowRunDetail',
      RunListSchema: 'WorkflowRunList',
      StepSchema: 'WorkflowRunStep',
      StartRunBody: 'WorkflowRunCreateRequest',
      TriggerAcceptedSchema: 'WorkflowTriggerReceipt',
      TriggerSecretSchema: 'WorkflowTriggerSecret',
    },
  ],
  [
    'Webhook',
    webhooks,
    {
      SubscriptionSchema: 'WebhookSubscription',
      UpdateSubscriptionBody: 'WebhookSubscriptionUpdateRequest',
      SecretResponse: 'WebhookSecret',
      TestEventResponse: 'WebhookTestEvent',
      EventTypesResponse: 'WebhookEventTypes',
      DestinationSchema: 'WebhookDestination',
      CreatedDestinationSchema: 'WebhookDestinationWithSecret',
      DestinationListSchema: 'WebhookDestinationList',
      DestinationSecretResponse: 'WebhookDestinationSecret',
      CreateDestinationBody: 'WebhookDestinationCreateRequest',
      UpdateDestinationBody: 'WebhookDestinationUpdateRequest',
      DeliverySchema: 'WebhookDelivery',
      DeliveryListSchema: 'WebhookDeliveryList',
      AttemptSchema: 'WebhookDeliveryAttempt',
      AttemptListSchema: 'WebhookDeliveryAttemptList',
    },
  ],
  [
    'Contract',
    contracts,
    {
      RequestSchema: 'ContractRequest',
      RequestListSchema: 'ContractRequestList',
      SendBody: 'ContractRequestCreateRequest',
      TemplateSchema: 'ContractTemplate',
      TemplateListSchema: 'ContractTemplateList',
      CreateTemplateBody: 'ContractTemplateCreateRequest',
      PatchTemplateBody: 'ContractTemplateUpdateRequest',
      FieldSchema: 'ContractField',
      RoleSchema: 'ContractRole',
      AuditTrailSchema: 'ContractAuditTrail',
      DocumentInput: 'ContractDocumentInput',
      ParticipantInput: 'ContractParticipantInput',
      PaymentInput: 'ContractPaymentInput',
      CorrectBody: 'ContractParticipantCorrectionRequest',
      RemindBody: 'ContractRemindRequest',
      VoidBody: 'ContractVoidRequest',
      SimulateBody: 'ContractSimulationRequest',
    },
  ],
  [
    'Contract',
    flows,
    {
      FlowSchema: 'ContractFlow',
      FlowListSchema: 'ContractFlowList',
      FlowBody: 'ContractFlowCreateRequest',
      PatchFlowBody: 'ContractFlowUpdateRequest',
    },
  ],
  [
    'Monitoring',
    monitoring,
    {
      MonitoredTransactionSchema: 'MonitoredTransaction',
      MonitoredListSchema: 'MonitoredTransactionList',
      SubmitBodySchema: 'MonitoredTransactionCreateRequest',
      TransactionInputSchema: 'MonitoredTransactionInput',
      ReviewBodySchema: 'MonitoringReviewRequest',
      PolicySchema: 'MonitoringPolicy',
      PolicyInputSchema: 'MonitoringPolicyRequest',
      RuleInput: 'MonitoringRuleInput',
      TestBodySchema: 'MonitoringPolicyTestRequest',
      TestResultSchema: 'MonitoringPolicyTestResult',
      BacktestBodySchema: 'MonitoringBacktestRequest',
      BacktestResultSchema: 'MonitoringBacktestResult',
      SimulateBodySchema: 'MonitoringSimulationRequest',
    },
  ],
  [
    'Screening',
    screening,
    {
      ScreeningSchema: 'WalletScreening',
      ScreenBody: 'WalletScreeningRequest',
      WalletSchema: 'Wallet',
      WalletDetailSchema: 'WalletDetail',
      WalletListSchema: 'WalletList',
      PatchWalletBody: 'WalletUpdateRequest',
      SimulateScreeningBody: 'WalletScreeningSimulationRequest',
      NotificationAckSchema: 'ScreeningNotificationAck',
    },
  ],
  [
    'Screening',
    ownership,
    {
      OwnershipSchema: 'WalletOwnershipRequest',
      OwnershipListSchema: 'WalletOwnershipRequestList',
      CreateOwnershipBody: 'WalletOwnershipRequestCreateRequest',
      ProofBody: 'WalletOwnershipProofRequest',
      SimulateOwnershipBody: 'WalletOwnershipSimulationRequest',
    },
  ],
  [
    'TravelRule',
    travelRule,
    {
      TransferSchema: 'TravelRuleTransfer',
      TransferListSchema: 'TravelRuleTransferList',
      CreateTransferBody: 'TravelRuleTransferCreateRequest',
      PatchTransferBody: 'TravelRuleTransferUpdateRequest',
      PartySchema: 'TravelRuleParty',
      FiatValue: 'TravelRuleFiatValue',
      SettingsSchema: 'TravelRuleSettings',
      SettingsBody: 'TravelRuleSettingsRequest',
      VaspSchema: 'Vasp',
      VaspListSchema: 'VaspList',
      TxHashBody: 'TravelRuleTxHashRequest',
      ProceedBody: 'TravelRuleProceedRequest',
      RejectBody: 'TravelRuleRejectRequest',
      InboundBody: 'TravelRuleInboundRequest',
      SimulateBody: 'TravelRuleSimulationRequest',
      NotificationAckSchema: 'TravelRuleNotificationAck',
    },
  ],
  [
    'Recurring',
    recurring,
    {
      RecurringSchema: 'RecurringPayment',
      RecurringListSchema: 'RecurringPaymentList',
      CreateRecurringBodySchema: 'RecurringPaymentCreateRequest',
      PatchRecurringBodySchema: 'RecurringPaymentUpdateRequest',
      RecurringScheduleSchema: 'RecurringSchedule',
      RetryPolicySchema: 'RecurringRetryPolicy',
      MandateInputSchema: 'RecurringMandateInput',
      RunSchema: 'RecurringRun',
      RunListSchema: 'RecurringRunList',
      AttemptSchema: 'RecurringRunAttempt',
      OnDemandRunBodySchema: 'RecurringRunCreateRequest',
      CancelBodySchema: 'RecurringPaymentCancelRequest',
      PauseBodySchema: 'RecurringPaymentPauseRequest',
      RetryBodySchema: 'RecurringRunRetryRequest',
      SimulateMandateBodySchema: 'RecurringMandateSimulationRequest',
    },
  ],
  [
    'Schedule',
    schedules,
    {
      ScheduleSchema: 'PaymentSchedule',
      ScheduleListSchema: 'PaymentScheduleList',
      CreateScheduleBodySchema: 'PaymentScheduleCreateRequest',
      PatchScheduleBodySchema: 'PaymentScheduleUpdateRequest',
      CancelScheduleBodySchema: 'PaymentScheduleCancelRequest',
      InstalmentSchema: 'Instalment',
      PatchInstalmentBodySchema: 'InstalmentUpdateRequest',
      SimulateInstalmentBodySchema: 'InstalmentSimulationRequest',
    },
  ],
  [
    'Bulk',
    bulk,
    {
      JobSchema: 'BulkBatch',
      JobListSchema: 'BulkBatchList',
      BulkCreateBodySchema: 'BulkBatchCreateRequest',
      DefaultsSchema: 'BulkDefaults',
      RowSchema: 'BulkRow',
      RowListSchema: 'BulkRowList',
      RowErrorSchema: 'BulkRowError',
      CancelBodySchema: 'BulkBatchCancelRequest',
      RetryBodySchema: 'BulkBatchRetryRequest',
    },
  ],
  [
    'Ticket',
    tickets,
    {
      TicketSchema: 'Ticket',
      TicketListSchema: 'TicketList',
      CreateTicketBody: 'TicketCreateRequest',
      PatchTicketBody: 'TicketUpdateRequest',
      MessageSchema: 'TicketMessage',
      MessageListSchema: 'TicketMessageList',
      CreateMessageBody: 'TicketMessageCreateRequest',
      AttachmentInputSchema: 'TicketAttachmentInput',
      SatisfactionBody: 'TicketSatisfactionRequest',
      SimulateTicketBody: 'TicketSimulationRequest',
      AdminTicketSchema: 'AdminTicket',
      AdminTicketDetailSchema: 'AdminTicketDetail',
      AdminTicketListSchema: 'AdminTicketList',
      AdminMessageSchema: 'AdminTicketMessage',
      AdminMessageBody: 'AdminTicketMessageCreateRequest',
      AdminPatchTicketBody: 'AdminTicketUpdateRequest',
    },
  ],
  [
    'Billing',
    billing,
    {
      InvoiceSchema: 'Invoice',
      InvoiceListSchema: 'InvoiceList',
      InvoiceLineSchema: 'InvoiceLine',
      AdminInvoiceSchema: 'AdminInvoice',
      AdminInvoiceListSchema: 'AdminInvoiceList',
      CreateInvoiceBody: 'InvoiceCreateRequest',
      PatchInvoiceBody: 'InvoiceUpdateRequest',
      LineInput: 'InvoiceLineInput',
      MarkPaidBody: 'InvoiceMarkPaidRequest',
      VoidBody: 'InvoiceVoidRequest',
      SampleInvoiceBody: 'SandboxInvoiceRequest',
      SimulateInvoiceBody: 'InvoiceSimulationRequest',
      BillingDetailsSchema: 'BillingDetails',
      BillingDetailsBody: 'BillingDetailsRequest',
      UsageSchema: 'BillingUsage',
      PriceListSchema: 'PriceList',
      PriceListBody: 'PriceListRequest',
    },
  ],
  [
    'Notification',
    notifications,
    {
      NotificationSchema: 'Notification',
      NotificationListSchema: 'NotificationList',
      PatchNotificationBody: 'NotificationUpdateRequest',
      CountsSchema: 'NotificationCounts',
      PreferencesSchema: 'NotificationPreferences',
      PreferencesBody: 'NotificationPreferencesRequest',
      MarkSeenBody: 'NotificationsMarkSeenRequest',
      BulkBody: 'NotificationsBulkRequest',
      UpdatedSchema: 'NotificationsUpdateResult',
      BroadcastBody: 'NotificationBroadcastRequest',
      BroadcastResultSchema: 'NotificationBroadcastResult',
    },
  ],
  ['Activity', activity, { ActivityEntrySchema: 'ActivityLog', ActivityListSchema: 'ActivityLogList' }],
];

/** Parameters (path, query, headers) are not components; errors use ErrorResponse. */
const SKIPPED = /(Query|Params|Headers|QuerySchema|ParamsSchema|HeadersSchema)$|^ErrorSchema$/;

/** `FooBodySchema`/`FooBody` -> `FooRequest`, `BarSchema` -> `Bar`. */
export function defaultSchemaName(exportName: string): string {
  const base = exportName.replace(/Schema$/, '');
  return base.endsWith('Body') ? `${base.slice(0, -4)}Request` : base;
}

const isObjectSchema = (v: unknown): v is Record<string, unknown> =>
  !!v &&
  typeof v === 'object' &&
  ((v as { type?: unknown }).type === 'object' || Array.isArray((v as { anyOf?: unknown }).anyOf));

let registered = false;

/** Names the exported schemas once (idempotent). Domain names first, so they are never taken. */
export function registerSchemaNames(): void {
  if (registered) return;
  registered = true;
  for (const [, exports, names] of AREAS)
    for (const [exportName, name] of Object.entries(names)) {
      const schema = exports[exportName];
      if (!isObjectSchema(schema)) throw new Error(`No object schema ${exportName} to name ${name}`);
      nameSchema(name, schema);
    }
  for (const [prefix, exports, names] of AREAS)
    for (const [exportName, schema] of Object.entries(exports)) {
      if (exportName in names || SKIPPED.test(exportName) || !isObjectSchema(schema)) continue;
      const base = defaultSchemaName(exportName);
      const candidates = [base.startsWith(prefix) ? base : `${prefix}${base}`, base];
      for (let i = 2; candidates.every(isSchemaNameTaken); i++) candidates.push(`${prefix}${base}${i}`);
      nameSchema(candidates.find((n) => !isSchemaNameTaken(n))!, schema);
    }
}
