/** Messages of our own (not in the spec) used by notifications. */
export const NotificationMessages = {
  notFound: 'Notification not found',
  securityMandatory: 'Security notifications cannot be disabled',
} as const;
