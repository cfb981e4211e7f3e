import { Type } from 'typebox';

const UrlField = (description: string) =>
  Type.Union([Type.String({ maxLength: 2048, description }), Type.Null()], { description });

export const SettingsBody = Type.Object(
  {
    callback_url: Type.Optional(
      UrlField(
        'Absolute http(s) URL (https on production) the payer returns to after checkout; null or "" clears it',
      ),
    ),
    webhook_url: Type.Optional(
      UrlField(
        'Absolute http(s) URL (https on production) receiving signed webhook events; null or "" clears it',
      ),
    ),
    webhook_enabled: Type.Optional(
      Type.Boolean({ description: 'The webhook switch; enabling it needs a webhook_url' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const SettingsSchema = Type.Object({
  callback_url: Type.Union([Type.String(), Type.Null()]),
  webhook_url: Type.Union([Type.String(), Type.Null()]),
  webhook_enabled: Type.Boolean(),
  webhook_secret: Type.Optional(
    Type.String({
      description:
        'Only in the answer that first configures a webhook URL: the main signing secret, shown once. ' +
        'The whole `whsec_…` string is the HMAC-SHA256 key.',
    }),
  ),
});
