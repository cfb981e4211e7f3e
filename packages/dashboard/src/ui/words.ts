/**
 * The API's schema messages (pydantic's words) as a form says them; anything else (the API's own
 * sentences, such as an IBAN's check digits) is shown as it is.
 */
export function inWords(msg: string): string {
  if (msg === 'Field required' || msg === 'String should have at least 1 character') return 'Required';
  const min = /^String should have at least (\d+) characters$/.exec(msg);
  if (min) return `Enter at least ${min[1]} characters`;
  const max = /^String should have at most (\d+) characters?$/.exec(msg);
  if (max) return `Enter at most ${max[1]} characters`;
  if (/^String should match pattern /.test(msg)) return 'This format is not accepted here';
  if (msg === 'Input should be a valid email') return 'Enter an email address such as name@example.com';
  return msg;
}
