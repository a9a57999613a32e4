import { createHash } from 'node:crypto';

/** A state file as terraform writes it (format 4), with `count` managed instances and a few outputs. */
export function stateFile(serial: number, lineage: string, options: { count?: number; greeting?: string; padding?: number } = {}): Buffer {
  const instances = Array.from({ length: options.count ?? 1 }, (_, index) => ({
    index_key: index,
    schema_version: 0,
    attributes: { id: `id-${index}` },
  }));
  const state = {
    version: 4,
    terraform_version: '1.11.4',
    serial,
    lineage,
    outputs: {
      greeting: { value: options.greeting ?? 'hello', type: 'string' },
      ports: { value: [80, 443], type: ['list', 'number'] },
      password: { value: 'hunter2', type: 'string', sensitive: true },
    },
    resources: [
      { mode: 'managed', type: 'terraform_data', name: 'item', provider: 'provider["terraform.io/builtin/terraform"]', instances },
      {
        mode: 'data',
        type: 'terraform_remote_state',
        name: 'other',
        provider: 'provider["terraform.io/builtin/terraform"]',
        instances: [{ attributes: {} }],
      },
    ],
    check_results: null,
    ...(options.padding ? { padding: 'x'.repeat(options.padding) } : {}),
  };
  return Buffer.from(JSON.stringify(state));
}

export const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');
