/** Messages of our own (not in the spec) used by the activity log. */
export const ActivityMessages = {
  entryNotFound: 'Activity log entry not found',
  exportTooLarge: 'Narrow the filters to export at most 100000 entries',
} as const;
