import { canonicalKeys } from '../../core/dialect.js';
import { ApiError, unprocessable } from '../../core/errors.js';

export interface ResourceInput {
  id?: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships: Record<string, unknown>;
}

const invalid = (detail: string, pointer: string) => new ApiError(422, detail, { title: 'invalid attribute', pointer });

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads `{"data": {...}}` from a request body. `type` must be one of `types`; an empty string is
 * accepted where real clients send `"type": ""` (admin settings, lock). Attribute names are
 * normalised to their spec spelling, so `terraform-version` and `tool-version` arrive alike.
 */
export function readResource(body: unknown, types: readonly string[], options: { allowEmptyType?: boolean } = {}): ResourceInput {
  if (!isObject(body) || !isObject(body['data'])) throw invalid('the body must be a JSON:API document with a data object', '/data');
  const data = body['data'];
  const type = data['type'];
  const typeAccepted = typeof type === 'string' && (types.includes(type) || (options.allowEmptyType === true && type === ''));
  if (!typeAccepted) throw invalid(`data.type must be ${types.map((t) => `"${t}"`).join(' or ')}`, '/data/type');
  const attributes = data['attributes'] ?? {};
  if (!isObject(attributes)) throw invalid('data.attributes must be an object', '/data/attributes');
  const relationships = data['relationships'] ?? {};
  if (!isObject(relationships)) throw invalid('data.relationships must be an object', '/data/relationships');
  const id = data['id'];
  if (id !== undefined && id !== null && typeof id !== 'string') throw invalid('data.id must be a string', '/data/id');
  return {
    ...(typeof id === 'string' ? { id } : {}),
    type,
    attributes: canonicalKeys(attributes),
    relationships,
  };
}

/** Reads `{"data": [...]}` (relationship endpoints: tags, consumers, team members). */
export function readIdentifierList(body: unknown, type: string): { id?: string; attributes: Record<string, unknown> }[] {
  if (!isObject(body) || !Array.isArray(body['data'])) throw invalid('the body must be a document with a data array', '/data');
  return body['data'].map((entry, index) => {
    if (!isObject(entry) || entry['type'] !== type) throw invalid(`each entry must have type "${type}"`, `/data/${index}/type`);
    const id = entry['id'];
    const attributes = isObject(entry['attributes']) ? entry['attributes'] : {};
    return typeof id === 'string' && id !== '' ? { id, attributes } : { attributes };
  });
}

/** Typed accessors for attributes that answer a bad value with a 422 naming the attribute. */
export class Attributes {
  constructor(
    private readonly raw: Record<string, unknown>,
    private readonly base = '/data/attributes',
  ) {}

  has(name: string): boolean {
    return this.raw[name] !== undefined;
  }

  private pointer(name: string): string {
    return `${this.base}/${name}`;
  }

  string(
    name: string,
    rules: { required?: boolean; pattern?: RegExp; patternText?: string; nullable?: boolean; maxLength?: number } = {},
  ): string | null | undefined {
    const value = this.raw[name];
    if (value === undefined || (value === null && !rules.nullable)) {
      if (rules.required) throw invalid(`${name} is required`, this.pointer(name));
      return undefined;
    }
    if (value === null) return null;
    if (typeof value !== 'string') throw invalid(`${name} must be a string`, this.pointer(name));
    if (rules.required && value === '') throw invalid(`${name} can't be blank`, this.pointer(name));
    if (rules.maxLength !== undefined && value.length > rules.maxLength) {
      throw invalid(`${name} is too long (maximum is ${rules.maxLength} characters)`, this.pointer(name));
    }
    if (rules.pattern && !rules.pattern.test(value)) {
      throw invalid(`${name} ${rules.patternText ?? 'is invalid'}`, this.pointer(name));
    }
    return value;
  }

  boolean(name: string, options: { acceptStrings?: boolean } = {}): boolean | undefined {
    const value = this.raw[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'boolean') return value;
    if (options.acceptStrings && (value === 'true' || value === 'false')) return value === 'true';
    throw invalid(`${name} must be a boolean`, this.pointer(name));
  }

  integer(name: string, rules: { minimum?: number } = {}): number | undefined {
    const value = this.raw[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid(`${name} must be an integer`, this.pointer(name));
    if (rules.minimum !== undefined && value < rules.minimum)
      throw invalid(`${name} must be at least ${rules.minimum}`, this.pointer(name));
    return value;
  }

  stringArray(name: string): string[] | undefined {
    const value = this.raw[name];
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
      throw invalid(`${name} must be an array of strings`, this.pointer(name));
    }
    return value as string[];
  }

  array(name: string): unknown[] | null | undefined {
    const value = this.raw[name];
    if (value === undefined || value === null) return value;
    if (!Array.isArray(value)) throw invalid(`${name} must be an array`, this.pointer(name));
    return value as unknown[];
  }

  object(name: string): Record<string, unknown> | null | undefined {
    const value = this.raw[name];
    if (value === undefined) return undefined;
    if (value === null) return null;
    if (!isObject(value)) throw invalid(`${name} must be an object`, this.pointer(name));
    return value;
  }

  nested(name: string): Attributes | null | undefined {
    const value = this.object(name);
    return value ? new Attributes(value, this.pointer(name)) : value;
  }
}

/** `relationships.<name>.data.id` of a to-one relationship, or undefined. */
export function relationshipId(relationships: Record<string, unknown>, name: string, type?: string): string | null | undefined {
  const relationship = relationships[name];
  if (relationship === undefined) return undefined;
  if (!isObject(relationship)) throw invalid(`${name} must be a relationship object`, `/data/relationships/${name}`);
  const data = relationship['data'];
  if (data === null) return null;
  if (!isObject(data) || typeof data['id'] !== 'string')
    throw invalid(`${name}.data.id must be a string`, `/data/relationships/${name}/data/id`);
  if (type !== undefined && data['type'] !== type)
    throw invalid(`${name}.data.type must be "${type}"`, `/data/relationships/${name}/data/type`);
  return data['id'];
}

/** The ids of a to-many relationship (`relationships.<name>.data[].id`). */
export function relationshipIds(relationships: Record<string, unknown>, name: string, type: string): string[] | undefined {
  const relationship = relationships[name];
  if (relationship === undefined) return undefined;
  const data = isObject(relationship) ? relationship['data'] : undefined;
  if (!Array.isArray(data)) throw invalid(`${name}.data must be an array`, `/data/relationships/${name}/data`);
  return data.map((entry, index) => {
    if (!isObject(entry) || typeof entry['id'] !== 'string' || entry['type'] !== type) {
      throw invalid(`each ${name} entry must be {"type": "${type}", "id": …}`, `/data/relationships/${name}/data/${index}`);
    }
    return entry['id'];
  });
}

/** A run variable as a run or a query run takes it. */
export interface RunVariable {
  key: string;
  value: string;
}

/**
 * A run's `variables` attribute: undefined when absent or null, else a list of `{key, value}`
 * strings (other members dropped); anything else is a 422.
 */
export function runVariables(attributes: Record<string, unknown>): RunVariable[] | undefined {
  const variables = attributes['variables'];
  if (variables === undefined || variables === null) return undefined;
  const isPair = (item: unknown) =>
    typeof item === 'object' &&
    item !== null &&
    typeof (item as Record<string, unknown>)['key'] === 'string' &&
    typeof (item as Record<string, unknown>)['value'] === 'string';
  if (!Array.isArray(variables) || !variables.every(isPair)) {
    throw unprocessable('variables must be a list of {key, value} strings', '/data/attributes/variables');
  }
  return (variables as RunVariable[]).map(({ key, value }) => ({ key, value }));
}
