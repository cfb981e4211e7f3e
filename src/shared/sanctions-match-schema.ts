import { Type } from 'typebox';

const check = (what: string) =>
  Type.Optional(
    Type.Union([Type.Literal('agrees'), Type.Literal('differs')], {
      description:
        `Present when the screened party and the list entry both have a ${what}: whether they agree. ` +
        'A difference never lowers the score; it is reported for the reviewer.',
    }),
  );

/** The details an official list's hit adds (monitoring's sanctions matches carry them too). */
export const sanctionsHitDetails = () => ({
  list_version: Type.Optional(
    Type.String({ description: "The list's version screened: `<publication date>#<content hash>`" }),
  ),
  alias_strength: Type.Optional(
    Type.Union([Type.Literal('primary'), Type.Literal('strong'), Type.Literal('weak')], {
      description:
        'How the list rates the name that matched: `primary` (the listed name or a spelling variation of it), `strong` (a good-quality alias) or `weak` (a weak or low-quality alias: a hit only when the date of birth or the country agrees)',
    }),
  ),
  date_of_birth_check: check("date of birth (inside the entry's window for an approximate date or a range)"),
  country_check: check('country'),
});

/**
 * A sanctions hit reported beside a screened party, as the wallet-ownership declarant
 * (`declarant_sanctions_matches`) and the travel-rule parties (`sanctions_matches`) show it: one
 * schema for both (docs/vendors/sanctions-lists.md, "Matching"). Reported, never decided on.
 */
export const SanctionsNameMatchSchema = Type.Object({
  list: Type.String(),
  matched_name: Type.String(),
  match_score: Type.Number({ description: '0-100' }),
  entry_id: Type.Union([Type.String(), Type.Null()]),
  entry_name: Type.Union([Type.String(), Type.Null()]),
  screened_name: Type.String(),
  ...sanctionsHitDetails(),
});

/** The hits of the screened names (empty: none); null when not screened. */
export const sanctionsNameMatches = (description: string) =>
  Type.Union([Type.Array(SanctionsNameMatchSchema, { description }), Type.Null()]);

/**
 * Whether the names were screened: `screened`; `not_configured` (the deployment has no sanctions
 * lists: nothing was screened); `unavailable` (lists configured but unable to answer: only an inbound
 * travel-rule transfer is kept so, rather than lost; the other checks answer 503). Null on records
 * from before the field existed.
 */
export const sanctionsScreeningSchema = (description: string) =>
  Type.Union(
    [Type.Literal('screened'), Type.Literal('not_configured'), Type.Literal('unavailable'), Type.Null()],
    { description },
  );
