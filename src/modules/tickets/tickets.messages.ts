/**
 * The support tickets' own messages (the spec's are in shared/messages.ts M): named-areas.md
 * section 8 quotes the reopen and follow-up ones; the rest are ours.
 */
export const TicketMessages = {
  // named-areas.md section 8, verbatim
  reopenWindowOver: 'Ticket can no longer be reopened; create a follow-up ticket',
  onlyClosedFollowUp: 'Only closed tickets can be followed up',
  attachmentNotFound: 'Attachment not found',
  // ours
  onlyClosedReopen: 'Only closed tickets can be reopened',
  staffMoveRefused: (from: string, to: string) => `Ticket cannot move from '${from}' to '${to}'`,
  satisfactionNotAllowed: 'Satisfaction can be rated only on resolved or closed tickets',
  closedNotEditable: 'Closed tickets cannot be changed',
  closedNoStaffReplies: 'Closed tickets cannot receive new replies; the client can open a follow-up ticket',
  statusOnInternalNote: 'status applies to public replies only',
  staffNotFound: 'Staff account not found',
  nothingToChange: 'Name at least one field to change',
  changedMeanwhile: 'Ticket was changed meanwhile, please retry',
} as const;
