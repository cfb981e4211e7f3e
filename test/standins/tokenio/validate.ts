/**
 * Request checks of the stand-in, from the reference's required fields and descriptions (Payments
 * v2 `PaymentInitiation`, `VrpConsentInitiation`, Sub-TPPs `CreateSubTppRequest`). A failed check
 * is a 400 `FieldError`: `{ error: { errorCode, message, paths } }`.
 */
import { errorBody, STANDIN_BANKS } from './fixtures';
import { StandinError } from './store';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

const LOCAL_INSTRUMENTS = [
  'SEPA',
  'SEPA_INSTANT',
  'FASTER_PAYMENTS',
  'ELIXIR',
  'EU_DOMESTIC_NON_EURO',
  'EU_DOMESTIC_NON_EURO_INSTANT',
  'BANKGIRO',
  'PLUSGIRO',
  'AUTO_SELECT',
];

function fail(message: string, paths: string[]): never {
  throw new StandinError(400, errorBody('InvalidArgument', message, { paths }));
}

function need(o: Obj, path: string, keys: string[]): void {
  const missing = keys.filter((k) => !isStr(o[k]));
  if (missing.length)
    fail(
      `Missing required field(s): ${missing.join(', ')}`,
      missing.map((k) => `${path}.${k}`),
    );
}

function amountOk(v: unknown): boolean {
  return typeof v === 'string' && /^\d{1,13}(\.\d{1,4})?$/.test(v) && Number(v) > 0;
}

/** The creditor account fields each local instrument needs (reference `localInstrument` description). */
function checkCreditor(creditor: unknown, instrument: string, path: string): void {
  if (!isObj(creditor)) fail('creditor is required', [path]);
  if (isStr(creditor.virtualAccountId)) return;
  need(creditor, path, ['name']);
  if (instrument === 'FASTER_PAYMENTS') {
    need(creditor, path, ['sortCode', 'accountNumber']);
    if (!/^\d{6}$/.test(String(creditor.sortCode)) || !/^\d{8}$/.test(String(creditor.accountNumber)))
      fail('sortCode must be 6 digits and accountNumber 8 digits', [
        `${path}.sortCode`,
        `${path}.accountNumber`,
      ]);
  } else if (
    ['SEPA', 'SEPA_INSTANT', 'EU_DOMESTIC_NON_EURO', 'EU_DOMESTIC_NON_EURO_INSTANT'].includes(instrument)
  ) {
    if (!isStr(creditor.iban) && !isStr(creditor.bban)) fail('creditor.iban is required', [`${path}.iban`]);
  }
}

export interface PaymentRules {
  /** Known sub-TPP ids that may be named in onBehalfOfId (ACTIVATED ones). */
  activeSubTpps: (id: string) => boolean;
  requireHttpsCallback: boolean;
}

export function checkPaymentInitiation(body: unknown, rules: PaymentRules): Obj {
  if (!isObj(body) || !isObj(body.initiation)) fail('initiation is required', ['initiation']);
  const i = body.initiation as Obj;
  need(i, 'initiation', [
    'refId',
    'remittanceInformationPrimary',
    'localInstrument',
    'callbackUrl',
    'flowType',
  ]);
  if (String(i.refId).length > 35)
    fail('`RefId` should not be longer than 35 symbols.', ['initiation.refId']);
  if (!isObj(i.amount) || !amountOk(i.amount.value) || !/^[A-Z]{3}$/.test(String(i.amount.currency)))
    fail('amount.value must be a decimal string and amount.currency an ISO 4217 code', ['initiation.amount']);
  if (!LOCAL_INSTRUMENTS.includes(String(i.localInstrument)))
    fail('localInstrument is not supported', ['initiation.localInstrument']);
  if (!['API_ONLY', 'FULL_HOSTED_PAGES', 'EMBEDDED_HOSTED_PAGES'].includes(String(i.flowType)))
    fail('flowType is not supported', ['initiation.flowType']);
  checkCreditor(i.creditor, String(i.localInstrument), 'initiation.creditor');
  let callback: URL;
  try {
    callback = new URL(String(i.callbackUrl));
  } catch {
    fail('callbackUrl must be a URL', ['initiation.callbackUrl']);
  }
  if (rules.requireHttpsCallback && callback.protocol !== 'https:')
    fail('callbackUrl must be https', ['initiation.callbackUrl']);
  // Tech bulletin TB-1549: payments under Token.io's licence must name the sub-TPP.
  if (!isStr(i.onBehalfOfId)) fail('onBehalfOfId is required', ['initiation.onBehalfOfId']);
  if (!rules.activeSubTpps(String(i.onBehalfOfId)))
    fail('onBehalfOfId is not an activated sub-TPP of this member', ['initiation.onBehalfOfId']);
  if (isStr(i.vrpConsentId)) return i;
  if (i.flowType !== 'FULL_HOSTED_PAGES' && !isStr(i.bankId))
    fail('bankId is required', ['initiation.bankId']);
  if (isStr(i.bankId)) {
    const bank = STANDIN_BANKS.find((b) => b.id === i.bankId);
    if (!bank)
      throw new StandinError(
        400,
        errorBody('FieldBank.RegistrationNotFound', 'Unknown bank', { bankId: i.bankId }),
      );
    if (!bank.supportedLocalInstruments.includes(String(i.localInstrument)))
      fail(`The bank does not support ${i.localInstrument}`, ['initiation.localInstrument']);
    // The bank's `mandatoryFields` (reference `MandatoryFieldsv2`) for a single payment by this instrument.
    for (const e of bank.mandatoryFields) {
      if (e.products?.length && !e.products.includes('SIP')) continue;
      if (e.localInstruments?.length && !e.localInstruments.includes(String(i.localInstrument))) continue;
      for (const path of e.fieldPaths ?? []) {
        let v: unknown = { initiation: i };
        for (const k of path.split('.')) v = isObj(v) ? v[k] : undefined;
        if (v === undefined || v === null || v === '') fail(`${path} is required by this bank`, [path]);
      }
    }
  }
  return i;
}

export function checkConsentInitiation(body: unknown, rules: PaymentRules): Obj {
  if (!isObj(body) || !isObj(body.initiation)) fail('initiation is required', ['initiation']);
  const i = body.initiation as Obj;
  need(i, 'initiation', [
    'refId',
    'remittanceInformationPrimary',
    'scheme',
    'localInstrument',
    'currency',
    'maximumIndividualAmount',
    'callbackUrl',
    'callbackState',
  ]);
  if (i.scheme !== 'OBL_SWEEPING') fail('Only OBL_SWEEPING is supported', ['initiation.scheme']);
  if (i.localInstrument !== 'FASTER_PAYMENTS')
    fail('Presently only Faster Payments are supported', ['initiation.localInstrument']);
  checkCreditor(i.creditor, 'FASTER_PAYMENTS', 'initiation.creditor');
  if (!amountOk(i.maximumIndividualAmount))
    fail('maximumIndividualAmount must be a decimal string', ['initiation.maximumIndividualAmount']);
  const limits = i.periodicLimits;
  if (
    !Array.isArray(limits) ||
    limits.length === 0 ||
    !limits.every(
      (l) =>
        isObj(l) &&
        amountOk(l.maximumAmount) &&
        ['DAY', 'WEEK', 'MONTH', 'YEAR'].includes(String(l.periodType)),
    )
  )
    fail('At least one periodic limit must be specified', ['initiation.periodicLimits']);
  if (isStr(i.onBehalfOfId) && !rules.activeSubTpps(String(i.onBehalfOfId)))
    fail('onBehalfOfId is not an activated sub-TPP of this member', ['initiation.onBehalfOfId']);
  if (isStr(i.bankId)) {
    const bank = STANDIN_BANKS.find((b) => b.id === i.bankId);
    if (!bank?.supportsVariableRecurringPayment)
      throw new StandinError(
        400,
        errorBody('FieldBank.RegistrationNotFound', 'The bank does not support VRP'),
      );
  }
  return i;
}

export function checkSubTpp(body: unknown): Obj {
  if (!isObj(body)) fail('The body must be an object', []);
  need(body, '', ['name', 'domain']);
  if (!isObj(body.merchant)) fail('merchant is required', ['merchant']);
  need(body.merchant, 'merchant', [
    'merchantJurisdiction',
    'legalEntityName',
    'companyRegistrationNumber',
    'primaryUseCase',
  ]);
  // TB-1192: the IBAN is validated and cannot be empty (GB variants take sortCode/accountNumber).
  const m = body.merchant;
  if (!isStr(m.iban) && !(isStr(m.sortCode) && isStr(m.accountNumber)))
    fail('merchant.iban is required', ['merchant.iban']);
  return body;
}
