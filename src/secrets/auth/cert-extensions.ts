import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';

/** ASN.1 string tags the real method reads an extension value as (UTF8, Numeric, Printable, T61, IA5, BMP). */
const STRING_TAGS = new Set([12, 18, 19, 20, 22, 30]);

/**
 * An extension's value read as one ASN.1 string, as the real method reads it; a value that is no
 * string reads as empty (so `oid:*` still matches any certificate carrying the extension).
 */
function stringValue(der: Buffer): string {
  if (der.length < 2 || !STRING_TAGS.has(der[0] ?? 0)) return '';
  let length = der[1] ?? 0;
  let offset = 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes === 0 || bytes > 4 || der.length < 2 + bytes) return '';
    length = der.subarray(2, 2 + bytes).reduce((sum, byte) => sum * 256 + byte, 0);
    offset = 2 + bytes;
  }
  if (offset + length > der.length) return '';
  const content = der.subarray(offset, offset + length);
  if (der[0] === 30) return Buffer.from(content).swap16().toString('utf16le');
  return content.toString(der[0] === 12 ? 'utf8' : 'latin1');
}

/** The client certificate's extensions: OID (dotted) to value read as a string. */
export function extensionValues(certificateDer: Buffer): Map<string, string> {
  const certificate = AsnConvert.parse(certificateDer, Certificate);
  const values = new Map<string, string>();
  for (const extension of certificate.tbsCertificate.extensions ?? []) {
    values.set(extension.extnID, stringValue(Buffer.from(extension.extnValue.buffer)));
  }
  return values;
}

/** Go's glob as the real method uses it: `*` matches any run of characters, case-sensitive. */
export function glob(pattern: string, value: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === value;
  const first = parts[0] ?? '';
  const last = parts[parts.length - 1] ?? '';
  if (!value.startsWith(first) || value.length < first.length + last.length) return false;
  let at = first.length;
  for (const middle of parts.slice(1, -1)) {
    const found = value.indexOf(middle, at);
    if (found === -1) return false;
    at = found + middle.length;
  }
  return value.length - last.length >= at && value.endsWith(last);
}

/** Whether the certificate carries every `oid:glob` extension the entry requires. */
export function meetsRequiredExtensions(required: string[], certificateDer: Buffer): boolean {
  if (required.length === 0) return true;
  const values = extensionValues(certificateDer);
  if (values.size === 0) return false;
  return required.every((requirement) => {
    const mark = requirement.indexOf(':');
    const oid = mark === -1 ? requirement : requirement.slice(0, mark);
    const value = values.get(oid);
    return value !== undefined && glob(mark === -1 ? '' : requirement.slice(mark + 1), value);
  });
}
