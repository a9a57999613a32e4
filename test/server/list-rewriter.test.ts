import { describe, expect, it } from 'vitest';
import { clientMethod, LIST_MARKER_HEADER, ListMethodRewriter } from '../../src/server/list-method.js';

// The byte-level rewriter on its own: every split of a stream must give the same output as the
// whole stream, and bodies must never be touched. (The TCP tests exercise it through sockets.)

const MARK = `${LIST_MARKER_HEADER}: 1\r\n`;

/** Runs `input` through a rewriter in the given pieces; returns everything it emitted. */
function rewrite(pieces: readonly string[], holdLimit?: number): string {
  const out: Buffer[] = [];
  const rewriter = new ListMethodRewriter((bytes) => out.push(Buffer.from(bytes)), holdLimit);
  for (const piece of pieces) rewriter.write(Buffer.from(piece, 'latin1'));
  rewriter.end();
  return Buffer.concat(out).toString('latin1');
}

/** The input split at every position into two pieces, and into single bytes. */
function everySplit(input: string): string[][] {
  const splits: string[][] = [[input], [...input]];
  for (let at = 1; at < input.length; at++) splits.push([input.slice(0, at), input.slice(at)]);
  return splits;
}

function expectRewrite(input: string, expected: string): void {
  for (const pieces of everySplit(input)) expect(rewrite(pieces)).toBe(expected);
}

const list = 'LIST /v1/things/items/ HTTP/1.1\r\nHost: x\r\n\r\n';
const listAsGet = `GET /v1/things/items/ HTTP/1.1\r\n${MARK}Host: x\r\n\r\n`;

describe('ListMethodRewriter', () => {
  it('rewrites a LIST request line to GET and adds the marker', () => {
    expectRewrite(list, listAsGet);
  });

  it('leaves other requests byte for byte', () => {
    const get = 'GET /v1/sys/health HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n\r\n';
    expectRewrite(get + get, get + get);
  });

  it('drops a marker header a client sent itself, whatever its case', () => {
    const spoofed = `POST /v1/a HTTP/1.1\r\nHost: x\r\nX-Understudy-List-Method: yes\r\nContent-Length: 2\r\n\r\n{}`;
    expectRewrite(spoofed, 'POST /v1/a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}');
    expectRewrite(`LIST /v1/a HTTP/1.1\r\n${LIST_MARKER_HEADER}: x\r\n\r\n`, `GET /v1/a HTTP/1.1\r\n${MARK}\r\n`);
  });

  it('never rewrites bytes inside a Content-Length body', () => {
    const body = `x\r\n\r\n${list}`;
    const post = `POST /v1/a HTTP/1.1\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    expectRewrite(post + list, post + listAsGet);
  });

  it('follows chunked bodies: extensions, trailers, chunk data that looks like a request', () => {
    const data = `${list}`;
    const post =
      'POST /v1/a HTTP/1.1\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n' +
      `${data.length.toString(16)};name=value\r\n${data}\r\n` +
      '1\r\nL\r\n' +
      '0\r\nX-Trailer: LIST / HTTP/1.1\r\n\r\n';
    expectRewrite(post + list + list, post + listAsGet + listAsGet);
  });

  it('passes empty lines between requests, as Node skips them', () => {
    expectRewrite(`\r\n${list}\r\n\n${list}`, `\r\n${listAsGet}\r\n\n${listAsGet}`);
  });

  it('handles a LIST with a body and a pipelined LIST after it', () => {
    const withBody = 'LIST /v1/a HTTP/1.1\r\nContent-Length: 4\r\n\r\nLIST';
    expectRewrite(withBody + list, `GET /v1/a HTTP/1.1\r\n${MARK}Content-Length: 4\r\n\r\nLIST${listAsGet}`);
  });

  it('stops rewriting after an upgrade or CONNECT: what follows is not HTTP/1', () => {
    // Nothing here takes an upgrade, and Node reading a socket natively parses nothing after one: dropped.
    const upgrade = 'GET /ws HTTP/1.1\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n\r\n';
    expectRewrite(upgrade + list, upgrade);
    const tunnel = 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n';
    expectRewrite(tunnel + list, tunnel + list);
  });

  it('passes input Node refuses through unchanged, so Node answers it', () => {
    for (const broken of [
      'POST /v1/a HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc',
      'POST /v1/a HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'POST /v1/a HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\nabc',
      'POST /v1/a HTTP/1.1\r\nContent-Length: x\r\n\r\n',
      'POST /v1/a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ]) {
      expectRewrite(broken + list, broken + list);
    }
  });

  it('does not wait for the end of a header block Node has already refused', () => {
    const out: string[] = [];
    const rewriter = new ListMethodRewriter((bytes) => out.push(bytes.toString('latin1')));
    rewriter.write(Buffer.from('GET / HTTP/1.1\nHost: x\n', 'latin1'));
    expect(out.join('')).toBe('GET / HTTP/1.1\nHost: x\n');
    const garbage: string[] = [];
    const second = new ListMethodRewriter((bytes) => garbage.push(bytes.toString('latin1')));
    second.write(Buffer.from('NOT A REQUEST LINE\r\nHost: x', 'latin1'));
    expect(garbage.join('')).toBe('NOT A REQUEST LINE\r\nHost: x');
  });

  it('holds an incomplete header block only up to its limit, then passes it on (a LIST as GET, for Node to 431)', () => {
    const head = `/v1/a HTTP/1.1\r\nX-Long: ${'a'.repeat(100)}`;
    for (const [method, passedAs] of [
      ['LIST', 'GET'],
      ['POST', 'POST'],
    ]) {
      const out: string[] = [];
      const rewriter = new ListMethodRewriter((bytes) => out.push(bytes.toString('latin1')), 64);
      const request = `${method} ${head}`;
      rewriter.write(Buffer.from(request.slice(0, 40), 'latin1'));
      expect(out.join('')).toBe('');
      rewriter.write(Buffer.from(request.slice(40), 'latin1'));
      expect(out.join('')).toBe(`${passedAs} ${head}`);
      expect(rewrite([`${method} ${head}\r\n\r\n`], 64)).toBe(`${passedAs} ${head}\r\n\r\n`);
    }
  });

  it('forwards a chunk that is all body as the same Buffer, without copying', () => {
    const emitted: Buffer[] = [];
    const rewriter = new ListMethodRewriter((bytes) => emitted.push(bytes));
    rewriter.write(Buffer.from('POST /v1/a HTTP/1.1\r\nContent-Length: 100000\r\n\r\n', 'latin1'));
    const body = Buffer.alloc(65_536, 'a');
    rewriter.write(body);
    expect(emitted.at(-1)).toBe(body);
    const get = Buffer.from('GET /v1/a HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1');
    const other = new ListMethodRewriter((bytes) => emitted.push(bytes));
    other.write(get);
    expect(emitted.at(-1)).toBe(get);
  });

  it('tells logs the method the client sent', () => {
    expect(clientMethod({ method: 'GET', headers: { [LIST_MARKER_HEADER]: '1' } })).toBe('LIST');
    expect(clientMethod({ method: 'GET', headers: {} })).toBe('GET');
  });
});
