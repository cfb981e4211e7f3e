/**
 * A short real description for every success response fastify-swagger left as "Default Response",
 * from the domain object it returns: `Transaction` -> "The transaction", a paginated
 * `TransactionList` -> "A page of transactions", 201 -> "The created transaction". A response
 * without a named object is described by its operation's summary.
 */
import type { OpenApiDoc, Schema } from './types';

const ACRONYMS: Record<string, string> = {
  api: 'API',
  kyc: 'KYC',
  kyb: 'KYB',
  mfa: 'MFA',
  totp: 'TOTP',
  otp: 'OTP',
  vasp: 'VASP',
  mcc: 'MCC',
  url: 'URL',
};

/** `ApiCredential` -> `API credential`, `WalletScreening` -> `wallet screening`. */
export function schemaWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(' ')
    .map((w) => ACRONYMS[w.toLowerCase()] ?? w.toLowerCase())
    .join(' ');
}

const plural = (words: string) =>
  /(s|x|ch|sh)$/.test(words)
    ? `${words}es`
    : /[^aeiou]y$/.test(words)
      ? `${words.slice(0, -1)}ies`
      : `${words}s`;

const DEFAULT = 'Default Response';

/** The description of a success response returning the component `name` (or null: no rule fits). */
export function describeNamed(
  name: string,
  component: Schema | undefined,
  status: string,
  statuses: string[],
) {
  const props = (component?.properties as Schema | undefined) ?? {};
  if (/List$/.test(name) && name !== 'List') {
    const items = plural(schemaWords(name.slice(0, -4)));
    return 'pagination' in props || 'total' in props ? `A page of ${items}` : `The ${items}`;
  }
  if (/Response\d*$/.test(name)) return null;
  const words = schemaWords(name);
  if (status === '201') return `The created ${words}`;
  if (status === '202') return `Accepted: the ${words}`;
  if (status === '200' && statuses.includes('201')) return `The existing ${words} (a repeated request)`;
  return `The ${words}`;
}

export function describeResponses(doc: OpenApiDoc): void {
  const schemas = doc.components.schemas ?? {};
  for (const item of Object.values(doc.paths))
    for (const op of Object.values(item)) {
      const statuses = Object.keys(op.responses ?? {}).filter((s) => /^2\d\d$/.test(s));
      for (const status of statuses) {
        const response = op.responses![status] as Schema;
        const media = Object.values((response.content as Record<string, Schema> | undefined) ?? {})[0];
        const ref = (media?.schema as Schema | undefined)?.$ref;
        const name = typeof ref === 'string' ? ref.split('/').pop()! : null;
        // fastify-swagger takes a response's description from its schema's ("A payment"): the
        // object's description, not the response's.
        const fromSchema = name && response.description === schemas[name]?.description;
        if (response.description !== DEFAULT && !fromSchema) continue;
        const named = name ? describeNamed(name, schemas[name], status, statuses) : null;
        const summary = op.summary?.replace(/\.$/, '');
        response.description =
          named ??
          (status === '204' || !media
            ? 'Done (no content)'
            : summary
              ? `${status === '201' ? 'Created' : status === '202' ? 'Accepted' : 'Result'} of: ${summary.charAt(0).toLowerCase()}${summary.slice(1)}`
              : 'Success');
      }
    }
}
