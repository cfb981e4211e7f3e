/** Payment schedule messages, verbatim where the product specification quotes them; tests import them from here. */
export const ScheduleMessages = {
  scheduleNotFound: 'Payment schedule not found',
  instalmentNotFound: 'Instalment not found',
  instalmentActionNotAllowed: (status: string) =>
    `Instalment in status '${status}' does not allow this action`,
  scheduleTerminal: (status: string) => `Payment schedule is in terminal status '${status}'`,
  // Our own (the spec is silent on these).
  instalmentsOrPlan: 'Exactly one of instalments and plan is required',
  dueDatesIncreasing: 'Due dates must be strictly increasing',
  dueDateInPast: 'The first due date must not be before today',
  dueDateNotBeforeToday: 'Due date must not be before today',
  dueDateOrder: 'Due date must stay after the previous instalment and before the next one',
  planTooSmall: (count: number) => `Total amount is too small to split into ${count} instalments`,
  instalmentAboveMax: (max: string, currency: string) => `Each instalment must not exceed ${max} ${currency}`,
  noLinksLeft: (max: number) => `Instalment has used all ${max} payment links`,
  payerRequired: 'Exactly one of user_id and business_customer_id is required',
  scheduleActionNotAllowed: (status: string) =>
    `Payment schedule in status '${status}' does not allow this action`,
  scheduleChangedMeanwhile: 'Payment schedule was changed meanwhile, please retry',
  instalmentChangedMeanwhile: 'Instalment was changed meanwhile, please retry',
} as const;
