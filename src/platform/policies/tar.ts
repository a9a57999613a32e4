import { gzipSync } from 'node:zlib';

/** One file of an archive built here. */
export interface ArchiveFile {
  name: string;
  content: Buffer;
}

/** A 512-byte ustar header for a regular file (mode 0644, owner 0, the given modification time). */
function header(file: ArchiveFile, mtime: Date): Buffer {
  const block = Buffer.alloc(512);
  const field = (offset: number, length: number, value: string) => block.write(value, offset, length, 'latin1');
  const octal = (offset: number, length: number, value: number) =>
    field(offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
  field(0, 100, file.name);
  octal(100, 8, 0o644);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, file.content.length);
  octal(136, 12, Math.floor(mtime.getTime() / 1000));
  field(148, 8, '        '); // the checksum counts its own field as spaces
  field(156, 1, '0');
  field(257, 6, 'ustar\0');
  field(263, 2, '00');
  const sum = block.reduce((total, byte) => total + byte, 0);
  field(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

/** A gzip-compressed tar of `files` (names of at most 100 bytes), as `tar -xzf` reads it. */
export function tarGz(files: readonly ArchiveFile[], mtime: Date): Buffer {
  const parts: Buffer[] = [];
  for (const file of files) {
    parts.push(header(file, mtime), file.content, Buffer.alloc((512 - (file.content.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts));
}
