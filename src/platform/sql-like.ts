/** A LIKE pattern matching `text` literally, with `\` as the escape character. */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
