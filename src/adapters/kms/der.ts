/** ECDSA signatures: PKCS#11 returns raw r‖s; X.509, JOSE verifiers and Node's default want DER. */

function derInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  let value = bytes.subarray(start);
  if ((value[0] ?? 0) & 0x80) value = Buffer.concat([Buffer.from([0]), value]);
  return Buffer.concat([Buffer.from([0x02, value.length]), value]);
}

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  return length < 0x100 ? Buffer.from([0x81, length]) : Buffer.from([0x82, length >> 8, length & 0xff]);
}

/** `r‖s` (each half the curve size) as a DER SEQUENCE of two INTEGERs. */
export function rawEcdsaToDer(raw: Buffer): Buffer {
  const half = raw.length / 2;
  const body = Buffer.concat([derInteger(raw.subarray(0, half)), derInteger(raw.subarray(half))]);
  return Buffer.concat([Buffer.from([0x30]), derLength(body.length), body]);
}
