import { closeSync, openSync, writeSync } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';

/** Where a `file` device writes: a file (appended to, created with `mode`), standard output, or nowhere. */
export interface SinkTarget {
  filePath: string;
  mode: number;
}

/** Go's spelling of a failed open, as the real service words the enable error (`open <path>: <reason>`). */
export function openErrorText(path: string, error: unknown): string {
  const message = (error as Error).message ?? String(error);
  const reason = /^[A-Z]+: (.*?), open /.exec(message)?.[1] ?? message;
  return `open ${path}: ${reason}`;
}

/**
 * One audit file, opened on first write and kept open. A write that fails is logged once (until a
 * write succeeds again) and the file is reopened on the next line, so a device whose file went
 * away or filled up recovers by itself and never fails the request it was recording.
 *
 * A request's record is held until its response record (or another request's) is written, so one
 * request costs one write to the file instead of two; the lines keep their order, and whatever is
 * held is written when the device is disabled or closed.
 */
export class FileSink {
  private fd: number | undefined;
  private failing = false;
  private retired = false;
  /** Lines taken with `hold` and not written yet. */
  private held = '';

  constructor(
    readonly target: SinkTarget,
    private readonly log: FastifyBaseLogger,
    private readonly devicePath: string,
  ) {}

  /** Opens the file now (enable's check that it can be written); throws the open error. */
  check(): void {
    if (this.target.filePath === 'stdout' || this.target.filePath === 'discard') return;
    this.fd ??= openSync(this.target.filePath, 'a', this.target.mode);
  }

  /** Takes a line to be written with the next one. */
  hold(text: string): void {
    if (this.retired || this.target.filePath === 'discard') return;
    this.held += text;
  }

  /** Writes what is held, then `text`. */
  write(text: string): void {
    if (this.retired || this.target.filePath === 'discard') return;
    const lines = this.held + text;
    this.held = '';
    this.writeNow(lines);
  }

  private writeNow(text: string): void {
    try {
      if (this.target.filePath === 'stdout') writeSync(1, text);
      else {
        this.fd ??= openSync(this.target.filePath, 'a', this.target.mode);
        writeSync(this.fd, text);
      }
      if (this.failing) this.log.info({ device: this.devicePath }, 'audit device writes again');
      this.failing = false;
    } catch (error) {
      this.closeFile();
      if (!this.failing) {
        this.log.error(
          { device: this.devicePath, file_path: this.target.filePath, error: (error as Error).message },
          'audit device cannot write; requests go on without this record (the real service would refuse them)',
        );
      }
      this.failing = true;
    }
  }

  /** The device was disabled: what it held is written, records still in flight for it are dropped, and the file is closed. */
  retire(): void {
    this.close();
    this.retired = true;
  }

  close(): void {
    if (this.held !== '' && !this.retired) this.write('');
    this.closeFile();
  }

  private closeFile(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // Already gone: nothing to release.
    }
    this.fd = undefined;
  }
}
