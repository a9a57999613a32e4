/**
 * A small reader for the subset of HCL (version 1) that ACL policies are written in:
 *
 *   # comment, // comment, /* block comment *\/
 *   name = "ops"
 *   path "secret/*" { capabilities = ["read", "list"] }
 *   path "pki/issue/+" { policy = "write", allowed_parameters = { "ttl" = [] } }
 *
 * Items are one or more keys (identifiers or quoted strings) followed by either `= value` or an
 * object. Values are strings, numbers, booleans, lists and objects. Commas between object items
 * and after the last list element are optional, as in HCL. Heredocs are not supported.
 */

export interface HclKey {
  text: string;
  line: number;
}

export type HclValue =
  | { kind: 'string'; value: string; line: number }
  | { kind: 'number'; value: number; line: number }
  | { kind: 'bool'; value: boolean; line: number }
  | { kind: 'list'; items: HclValue[]; line: number }
  | { kind: 'object'; items: HclItem[]; line: number };

export interface HclItem {
  keys: HclKey[];
  value: HclValue;
  line: number;
}

/** A syntax error, positioned the way the real service reports them: `At line:column: …`. */
export class HclSyntaxError extends Error {
  constructor(line: number, column: number, message: string) {
    super(`At ${line}:${column}: ${message}`);
  }
}

type TokenKind = 'ident' | 'string' | 'number' | '{' | '}' | '[' | ']' | '=' | ',' | 'eof';

interface Token {
  kind: TokenKind;
  text: string;
  line: number;
  column: number;
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', '/': '/' };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  let line = 1;
  let lineStart = 0;
  const column = () => index - lineStart + 1;
  const newline = () => {
    line += 1;
    lineStart = index + 1;
  };

  while (index < source.length) {
    const char = source[index] as string;
    if (char === '\n') {
      newline();
      index += 1;
    } else if (char === ' ' || char === '\t' || char === '\r') {
      index += 1;
    } else if (char === '#' || (char === '/' && source[index + 1] === '/')) {
      while (index < source.length && source[index] !== '\n') index += 1;
    } else if (char === '/' && source[index + 1] === '*') {
      const [startLine, startColumn] = [line, column()];
      index += 2;
      while (index < source.length && !(source[index] === '*' && source[index + 1] === '/')) {
        if (source[index] === '\n') newline();
        index += 1;
      }
      if (index >= source.length) throw new HclSyntaxError(startLine, startColumn, 'comment not terminated');
      index += 2;
    } else if (char === '"') {
      const [startLine, startColumn] = [line, column()];
      let text = '';
      index += 1;
      for (;;) {
        const next = source[index];
        if (next === undefined || next === '\n') throw new HclSyntaxError(startLine, startColumn, 'literal not terminated');
        if (next === '"') break;
        if (next === '\\') {
          const escaped = source[index + 1] ?? '';
          const replacement = ESCAPES[escaped];
          if (replacement === undefined) throw new HclSyntaxError(line, column(), 'unknown escape sequence');
          text += replacement;
          index += 2;
        } else {
          text += next;
          index += 1;
        }
      }
      index += 1;
      tokens.push({ kind: 'string', text, line: startLine, column: startColumn });
    } else if ('{}[]=,'.includes(char)) {
      tokens.push({ kind: char as TokenKind, text: char, line, column: column() });
      index += 1;
    } else if (/[-0-9]/.test(char)) {
      const match = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(source.slice(index));
      if (!match) throw new HclSyntaxError(line, column(), 'illegal char');
      tokens.push({ kind: 'number', text: match[0], line, column: column() });
      index += match[0].length;
    } else if (/[A-Za-z_]/.test(char)) {
      const match = /^[A-Za-z_][A-Za-z0-9_\-.]*/.exec(source.slice(index)) as RegExpExecArray;
      tokens.push({ kind: 'ident', text: match[0], line, column: column() });
      index += match[0].length;
    } else {
      throw new HclSyntaxError(line, column(), 'illegal char');
    }
  }
  tokens.push({ kind: 'eof', text: '', line, column: column() });
  return tokens;
}

class Parser {
  private position = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.position] as Token;
  }

  private take(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.position += 1;
    return token;
  }

  private fail(token: Token, expected: string): never {
    const got =
      token.kind === 'eof' ? 'EOF' : token.kind === 'ident' || token.kind === 'string' ? token.kind.toUpperCase() : `"${token.text}"`;
    throw new HclSyntaxError(token.line, token.column, `expected ${expected} got: ${got}`);
  }

  /** Items until `end` (`eof` at the top level, `}` inside an object). */
  items(end: 'eof' | '}'): HclItem[] {
    const items: HclItem[] = [];
    while (this.peek().kind !== end) {
      items.push(this.item());
      if (this.peek().kind === ',') this.take();
    }
    return items;
  }

  private item(): HclItem {
    const keys: HclKey[] = [];
    while (this.peek().kind === 'ident' || this.peek().kind === 'string') {
      const token = this.take();
      keys.push({ text: token.text, line: token.line });
    }
    const first = keys[0];
    if (!first) this.fail(this.peek(), 'IDENT | STRING');
    const next = this.peek();
    if (next.kind === '=') {
      this.take();
      if (keys.length > 1) throw new HclSyntaxError(next.line, next.column, 'nested object expected: LBRACE got: ASSIGN');
      return { keys, value: this.value(), line: first.line };
    }
    if (next.kind === '{') return { keys, value: this.object(), line: first.line };
    return this.fail(next, '"=" or "{"');
  }

  private object(): HclValue {
    const open = this.take();
    const items = this.items('}');
    this.take();
    return { kind: 'object', items, line: open.line };
  }

  private value(): HclValue {
    const token = this.peek();
    switch (token.kind) {
      case 'string':
        this.take();
        return { kind: 'string', value: token.text, line: token.line };
      case 'number':
        this.take();
        return { kind: 'number', value: Number(token.text), line: token.line };
      case 'ident':
        if (token.text === 'true' || token.text === 'false') {
          this.take();
          return { kind: 'bool', value: token.text === 'true', line: token.line };
        }
        return this.fail(token, 'a value');
      case '[': {
        this.take();
        const items: HclValue[] = [];
        while (this.peek().kind !== ']') {
          items.push(this.value());
          if (this.peek().kind === ',') this.take();
          else if (this.peek().kind !== ']') this.fail(this.peek(), '"," or "]"');
        }
        this.take();
        return { kind: 'list', items, line: token.line };
      }
      case '{':
        return this.object();
      default:
        return this.fail(token, 'a value');
    }
  }
}

/** Parses HCL text into its top-level items; throws HclSyntaxError. */
export function parseHcl(source: string): HclItem[] {
  const parser = new Parser(tokenize(source));
  return parser.items('eof');
}

/** Turns parsed JSON into the same item shape, so both policy forms decode through one path. */
export function itemsFromJson(value: Record<string, unknown>): HclItem[] {
  const toValue = (input: unknown): HclValue => {
    if (typeof input === 'string') return { kind: 'string', value: input, line: 1 };
    if (typeof input === 'number') return { kind: 'number', value: input, line: 1 };
    if (typeof input === 'boolean') return { kind: 'bool', value: input, line: 1 };
    if (Array.isArray(input)) return { kind: 'list', items: input.map(toValue), line: 1 };
    if (input && typeof input === 'object') return { kind: 'object', items: itemsFromJson(input as Record<string, unknown>), line: 1 };
    return { kind: 'string', value: '', line: 1 };
  };
  return Object.entries(value).map(([key, entry]) => ({ keys: [{ text: key, line: 1 }], value: toValue(entry), line: 1 }));
}
