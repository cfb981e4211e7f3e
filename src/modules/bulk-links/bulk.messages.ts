/** The bulk payment-link messages, verbatim where the product specification quotes them; tests import them from here. */
export const BulkLinkMessages = {
  jobNotFound: 'Bulk job not found',
  tooManyRows: 'Bulk payment links are limited to 500 rows per request',
  unparseable: 'File could not be parsed as CSV or XLSX',
  actionNotAllowed: (status: string) => `Bulk job in status '${status}' does not allow this action`,
  // Our own (the spec is silent on these).
  rowsOrFile: 'Exactly one of rows and file is required',
  noRows: 'Bulk job needs at least one row',
  fileTooLarge: (max: number) => `File must be at most ${max} bytes`,
  fileType: 'File name must end in .csv or .xlsx',
  notBase64: 'content_base64 must be base64-encoded',
  referenceNotUnique: 'Reference must be unique within the job',
  invalidEmail: 'Email must be a valid email address',
  unknownColumn: (name: string) => `Unknown column '${name}' ignored`,
  duplicateColumn: (name: string) => `Duplicate column '${name}' ignored`,
  unknownPatchField: 'Unknown column',
  rowNotFound: (n: number) => `Row ${n} does not exist in this job`,
  rowNotRetryable: (n: number, status: string) =>
    `Row ${n} is '${status}'; only failed or invalid rows can be retried`,
  userCreationFailed: 'User could not be created from the email',
  rowActionNotAllowed: (status: string) => `Bulk row in status '${status}' does not allow this action`,
  jobChangedMeanwhile: 'Bulk job was changed meanwhile, please retry',
} as const;
