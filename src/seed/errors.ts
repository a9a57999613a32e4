/** A seed file that cannot be applied; the message names the file or the entry and the field. */
export class SeedError extends Error {}
