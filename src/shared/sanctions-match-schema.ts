import { Type } from 'typebox';

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
});

/** The hits of the screened names (empty: none); null when not screened. */
export const sanctionsNameMatches = (description: string) =>
  Type.Union([Type.Array(SanctionsNameMatchSchema, { description }), Type.Null()]);
