/** `name` as an SQL identifier in double quotes (a table, column, trigger or schema name), quotes doubled. */
export const quotedIdentifier = (name: string): string => `"${name.replace(/"/g, '""')}"`;
