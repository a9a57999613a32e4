/**
 * A comment's `commented` run event shares its random part with the comment's id, so each names
 * the other without a column of its own.
 */
export const commentEventId = (commentId: string) => `re-${commentId.slice(commentId.indexOf('-') + 1)}`;
export const commentOfEvent = (eventId: string) => `wsc-${eventId.slice(eventId.indexOf('-') + 1)}`;
