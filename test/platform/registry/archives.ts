import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';

export interface Entry {
  name: string;
  content?: string | Buffer;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device' | 'fifo';
  linkname?: string;
  size?: number;
}

/** A tarball built entry by entry (hostile ones included), gzipped unless told otherwise. */
export async function tarball(entries: Entry[], options: { gzip?: boolean } = {}): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  for (const entry of entries) {
    const type = entry.type ?? 'file';
    const header = { name: entry.name, type, ...(entry.linkname ? { linkname: entry.linkname } : {}) };
    if (type === 'file') pack.entry(header, entry.content ?? '');
    else pack.entry({ ...header, size: 0 });
  }
  pack.finalize();
  await ended;
  const raw = Buffer.concat(chunks);
  return options.gzip === false ? raw : gzipSync(raw);
}

/** A small real module: variables, outputs, a README, a submodule and an example. */
export function moduleFiles(label: string): Entry[] {
  return [
    { name: 'README.md', content: `# greeting\n\nSays ${label}.\n` },
    {
      name: 'main.tf',
      content:
        'variable "who" {\n  type        = string\n  description = "whom to greet"\n}\n\n' +
        'variable "punctuation" {\n  type    = string\n  default = "!"\n}\n\n' +
        `output "greeting" {\n  value       = "${label} \${var.who}\${var.punctuation}"\n  description = "the greeting"\n}\n\n` +
        'terraform {\n  required_providers {\n    random = {\n' +
        '      source  = "hashicorp/random"\n      version = ">= 3.0"\n    }\n  }\n}\n',
    },
    { name: 'modules/inner/main.tf', content: 'output "inner" {\n  value = "inner"\n}\n' },
    { name: 'examples/basic/main.tf', content: 'module "greeting" {\n  source = "../.."\n  who    = "world"\n}\n' },
  ];
}
